package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// PlannedRequest is one prompt of a plan: what to send and when.
type PlannedRequest struct {
	Index int
	// InputLen is the prompt length in tokens: exact for token-id prompts,
	// an estimate for text prompts (the server's usage is what gets recorded).
	InputLen int
	// OutputLen is max_tokens.
	OutputLen int
	// Arrival is when the request becomes due, from the benchmark start. With
	// a concurrency cap it may be sent later, when a slot frees.
	Arrival time.Duration

	// Group is the shared prompt prefix the request starts with (the
	// shared_prefix dataset's system prompt, the random dataset's
	// prefix_len), -1 for none; GroupLen is its length in tokens.
	Group, GroupLen int
	// Shared is how many leading prompt tokens equal an earlier request's:
	// GroupLen, or in a multi-turn conversation the previous round's
	// prompt and reply (After). It is what a prefix cache can serve.
	Shared int
	// After is the index of the request this one continues (the previous
	// round of its conversation), which must finish before it is sent;
	// -1 for none.
	After int
	// Session and Round place a multi-turn request in its conversation
	// (Session -1 outside one).
	Session, Round int
	// Blocks are the keys of a trace request's full prompt blocks of
	// BlockTokens tokens each, in order: each names its block and every
	// block before it, so two requests share their first k blocks of
	// prompt exactly when their first k keys agree (trace_plan.go).
	Blocks      []uint64
	BlockTokens int

	offset int        // random dataset: where this prompt's token cycle starts
	segs   []tokenRun // shared_prefix: the prompt as runs of the token cycle
	text   string     // sharegpt / jsonl: the prompt as given
	ref    *reference
}

// Plan is a profile materialised: every request's lengths and arrival,
// derived only from the profile (and its dataset file) and its seed, so the
// simulator and the live client follow one schedule.
type Plan struct {
	Profile  Profile
	Requests []PlannedRequest
	// Warmup requests are sent before the measured run and excluded from the
	// metrics; like vllm bench they repeat the first prompt.
	Warmup []PlannedRequest
	// StageStarts is the index of each stage's first request (nil without
	// stages).
	StageStarts []int

	prefix []int // random dataset: the shared prefix token ids
}

// Plan materialises the profile. Dataset files are read and checked here, so
// a missing or corrupt file is an error before any request is sent.
func (p Profile) Plan() (Plan, error) {
	if err := p.Validate(); err != nil {
		return Plan{}, err
	}
	pl := Plan{Profile: p}
	var err error
	switch p.DatasetName() {
	case DatasetRandom:
		pl.Requests, pl.prefix = randomRequests(p)
	case DatasetShareGPT:
		if p.DatasetPath == "" {
			pl.Requests = syntheticShareGPT(p)
		} else {
			pl.Requests, err = shareGPTFile(p)
		}
	case DatasetJSONL:
		pl.Requests, err = jsonlFile(p)
	case DatasetSharedPrefix:
		pl.Requests = sharedPrefixRequests(p, p.Count())
	case DatasetTrace:
		pl.Requests, err = traceRequests(p) // arrivals and prefixes are the trace's
	}
	if err != nil {
		return Plan{}, err
	}
	pl.StageStarts = p.StageStarts()
	arrivals := stageArrivals(p)
	if len(p.Stages) == 0 {
		arrivals = Arrivals(len(pl.Requests), p.RequestRate, p.BurstinessFactor(), p.Seed)
	}
	for i := range pl.Requests {
		r := &pl.Requests[i]
		r.Index = i
		if p.DatasetName() == DatasetTrace {
			continue
		}
		r.Arrival = arrivals[i]
		if p.DatasetName() != DatasetSharedPrefix {
			r.Group, r.GroupLen, r.Shared, r.After, r.Session = -1, 0, 0, -1, -1
			if p.DatasetName() == DatasetRandom && p.PrefixLen > 0 {
				r.Group, r.GroupLen, r.Shared = 0, p.PrefixLen, p.PrefixLen
			}
		}
	}
	for i := 0; i < p.Warmup; i++ {
		w := pl.Requests[0]
		w.Index, w.Arrival = -1-i, 0
		pl.Warmup = append(pl.Warmup, w)
	}
	return pl, nil
}

// TotalInput is the planned number of prompt tokens, for sanity checks
// against the seeds and for the simulator.
func (pl Plan) TotalInput() int {
	n := 0
	for _, r := range pl.Requests {
		n += r.InputLen
	}
	return n
}

// TotalOutput is the planned number of output tokens (sum of max_tokens).
func (pl Plan) TotalOutput() int {
	n := 0
	for _, r := range pl.Requests {
		n += r.OutputLen
	}
	return n
}

// Arrivals returns n arrival offsets as `vllm bench serve` draws them:
// gamma-distributed gaps of shape burstiness and mean 1/rate (exponential,
// i.e. Poisson arrivals, at burstiness 1; constant gaps at +Inf), summed, then
// rescaled so the last request lands exactly at n/rate. An unlimited rate
// sends everything at time zero.
func Arrivals(n int, rate, burstiness float64, seed int64) []time.Duration {
	out := make([]time.Duration, n)
	if n == 0 || rate <= 0 || math.IsInf(rate, 1) {
		return out
	}
	// A dedicated stream so arrivals do not shift when the dataset sampling
	// changes how many numbers it draws.
	rng := rand.New(rand.NewPCG(uint64(seed), 0x61727269766c)) //nolint:gosec // schedule, not secrets
	cum := make([]float64, n)
	sum := 0.0
	for i := range cum {
		if math.IsInf(burstiness, 1) {
			sum += 1 / rate
		} else {
			sum += gammaSample(rng, burstiness, 1/(rate*burstiness))
		}
		cum[i] = sum
	}
	scale := 1.0
	if sum > 0 {
		scale = float64(n) / rate / sum
	}
	for i, c := range cum {
		out[i] = time.Duration(c * scale * float64(time.Second))
	}
	return out
}

// gammaSample draws Gamma(shape, scale) by Marsaglia and Tsang's method, with
// the usual boost for shape < 1.
func gammaSample(rng *rand.Rand, shape, scale float64) float64 {
	if shape < 1 {
		return gammaSample(rng, shape+1, scale) * math.Pow(rng.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v * scale
		}
	}
}

// lengthRange is vllm's RandomDataset range: [floor(L(1-r)), ceil(L(1+r))],
// at least lo.
func lengthRange(l int, r float64, lo int) (int, int) {
	a := max(int(math.Floor(float64(l)*(1-r))), lo)
	b := max(int(math.Ceil(float64(l)*(1+r))), a)
	return a, b
}

func (r PlannedRequest) String() string {
	return fmt.Sprintf("#%d in=%d out=%d at=%v", r.Index, r.InputLen, r.OutputLen, r.Arrival)
}
