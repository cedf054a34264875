package lab

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

//go:embed landscapes/*.toml
var landscapes embed.FS

// Landscapes lists the built-in landscape names.
func Landscapes() []string { return []string{"glm52", "qwen3"} }

// Load parses a built-in landscape.
func Load(name string) (*space.Space, error) {
	src, err := landscapes.ReadFile("landscapes/" + name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("unknown landscape %q (known: glm52, qwen3)", name)
	}
	return space.Parse(context.Background(), name+".toml", string(src), studies.SpaceOptions(nil))
}

// Options configure an evaluation.
type Options struct {
	Landscape string
	Samplers  []string
	// Seeds runs seeds FirstSeed..FirstSeed+Seeds-1 (FirstSeed 0: from
	// 1), so that fresh seeds check figures judged on the first ones; a
	// seed's reality, noise and study depend on its number only.
	Seeds     int
	FirstSeed int
	Trials    int
	NoiseCV   float64
	// Multi evaluates on both objectives (hypervolume); otherwise on the
	// first only.
	Multi bool
	// Prune turns on in-trial pruning, with PruneMargin (0: the default
	// rule's margin).
	Prune       bool
	PruneMargin float64
	// NoFeasibility turns off learning infeasible regions.
	NoFeasibility bool
	// Workers runs each study with this many trials at once on a virtual
	// clock (0 or 1: one after another, as a study on one GPU set runs).
	Workers int
	// Expert is the seed report's recommended config, when the landscape
	// has one: the runs report the GPU time to match its reality value.
	Expert space.Config
	// Prior, when set, guides the samplers with this oracle's values: the
	// simulator on the unperturbed cards, whatever the reality is.
	Prior *Oracle
	// Confirm is the share of the trials spent measuring the baseline
	// and the best configs again (studies.RunOptions.Confirm; `servetune
	// run` spends search.DefaultConfirmShare).
	Confirm float64
	// Dir holds the temporary study databases.
	Dir string
	// Cache, when set, keeps the oracles' outcomes between runs
	// (EvaluatePerturbed: each seed's reality).
	Cache string
	// Trace records each run's trials (Run.Trials).
	Trace bool
	// HeldOut is the held-out kind of simulator error applied to each
	// seed's reality (EvaluatePerturbed only; "": none; heldout.go).
	HeldOut string
	Log     zerolog.Logger
}

// Run is one study of one sampler and seed, as the lab scores it.
type Run struct {
	Sampler string `json:"sampler"`
	Seed    int    `json:"seed"`
	// Best[k] is the true (noiseless) value of the config the study would
	// report after k+1 counted trials: the best by the mean of its noisy
	// measurements (one, unless repeated or confirmed; a disputed
	// config's median), as the report picks it.
	Best []float64 `json:"best"`
	// GPUHours[k] is the GPU time spent by then, failures included.
	GPUHours []float64 `json:"gpu_hours"`
	// HV[k] is the hypervolume of the true values of the measured
	// feasible configs, relative to the true front's (multi-objective).
	HV          []float64 `json:"hv,omitempty"`
	Pruned      int       `json:"pruned"`
	FalsePrunes int       `json:"false_prunes"`
	Infeasible  int       `json:"infeasible"`
	// ToExpert is the GPU time spent when the reported best first reaches
	// the reality value of the seed report's recommended config (+Inf:
	// never; NaN: the landscape has no expert config).
	ToExpert float64 `json:"-"`
	// Optimum is this run's reality optimum when realities differ per
	// seed (0: the result's Truth).
	Optimum float64 `json:"optimum,omitempty"`
	// Confirm checks the study's reported best against the best config
	// it measured (nil when it reports none).
	Confirm *ConfirmCheck `json:"confirm,omitempty"`
	// Trials are the study's trials as the lab sees them, with Trace.
	Trials []TrialTrace `json:"trials,omitempty"`
}

// MarshalJSON writes NaN (no feasible trial yet) as null.
func (r Run) MarshalJSON() ([]byte, error) {
	type plain Run
	type out struct {
		plain
		Best     []any `json:"best"`
		GPUHours []any `json:"gpu_hours"`
		HV       []any `json:"hv,omitempty"`
	}
	return json.Marshal(out{plain(r), nullNaN(r.Best), nullNaN(r.GPUHours), nullNaN(r.HV)})
}

func nullNaN(xs []float64) []any {
	if xs == nil {
		return nil
	}
	out := make([]any, len(xs))
	for i, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out[i] = x
		}
	}
	return out
}

// Truth summarises the exhaustive grid.
type Truth struct {
	// Points counts the grid points that satisfy the space's rules,
	// out-of-memory and refused configs included; Feasible those that
	// complete with every objective defined (one whose requests all
	// failed has no throughput and no latency, and a study fails it).
	Points   int       `json:"points"`
	Feasible int       `json:"feasible"`
	Optimum  float64   `json:"optimum"`
	FrontHV  float64   `json:"front_hv,omitempty"`
	Ref      []float64 `json:"reference_point,omitempty"`
}

// Result is an evaluation's raw data; Summary reduces it.
type Result struct {
	Options    Options           `json:"-"`
	Landscape  string            `json:"landscape"`
	Objectives []space.Objective `json:"objectives"`
	Truth      Truth             `json:"truth"`
	// HeldOut is the held-out kind of error the realities carry ("":
	// none, and absent from the JSON, which stays as before).
	HeldOut string `json:"held_out,omitempty"`
	Runs    []Run  `json:"runs"`
}

// MarshalJSON adds the headline figures to the raw runs: the JSON is the
// contract, so it carries what the table shows.
func (r *Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		*plain
		Headline []Headline `json:"headline"`
	}{(*plain)(r), r.Headlines()})
}

// Evaluate runs every sampler on every seed.
func Evaluate(ctx context.Context, o *Oracle, truth *Truth, sp *space.Space, opt Options) (*Result, error) {
	objs := sp.Objectives[:1]
	if opt.Multi {
		objs = sp.Objectives
	}
	res := &Result{Options: opt, Landscape: opt.Landscape, Objectives: objs, Truth: *truth}
	first, final := opt.seedRange()
	for _, sampler := range opt.Samplers {
		for seed := first; seed <= final; seed++ {
			r, err := runOne(ctx, o, sp, objs, truth, sampler, seed, opt)
			if err != nil {
				return nil, fmt.Errorf("%s seed %d: %w", sampler, seed, err)
			}
			res.Runs = append(res.Runs, r)
			opt.Log.Debug().Str("sampler", sampler).Int("seed", seed).Float64("best", last(r.Best)).Msg("lab run")
		}
	}
	return res, nil
}

// seedRange is the first and last seed numbers the options run.
func (o Options) seedRange() (first, last int) {
	first = max(o.FirstSeed, 1)
	return first, first + o.Seeds - 1
}

func runOne(ctx context.Context, o *Oracle, base *space.Space, objs []space.Objective, truth *Truth, sampler string, seed int, opt Options) (Run, error) {
	sp := *base
	sp.Objectives = objs
	sp.Study.Sampler, sp.Study.Seed, sp.Study.NTrials = sampler, int64(seed), opt.Trials
	// Every variant gets its own study: the same name would resume a
	// finished study instead of running a new one.
	sp.Study.Name = fmt.Sprintf("%s-%s-%d-objs%d-prune%v-%g-feas%v-prior%v-confirm%g", opt.Landscape, sampler, seed, len(objs), opt.Prune, opt.PruneMargin, !opt.NoFeasibility, opt.Prior != nil, opt.Confirm)
	dir := studydir.Of(opt.Dir, sp.Study.Name)
	st, err := store.Open(ctx, dir.DB(), store.Create)
	if err != nil {
		return Run{}, err
	}
	defer st.Close()
	ro := studies.RunOptions{Space: &sp, Store: st, Runner: &noisyRunner{o: o, cv: opt.NoiseCV, seed: int64(seed)}, Dir: dir,
		Log: zerolog.Nop(), Search: search.Options{NoFeasibility: opt.NoFeasibility}, Workers: opt.Workers, Virtual: opt.Workers > 1, Confirm: opt.Confirm}
	label := sampler
	if opt.Prior != nil {
		ro.Search.Prior = newOraclePrior(opt.Prior, &sp)
		label += "+prior"
	}
	if opt.Prune {
		rule := search.DefaultPruneRule()
		if opt.PruneMargin > 0 {
			rule.Margin = opt.PruneMargin
		}
		ro.Prune = &rule
	}
	if err := studies.Run(ctx, ro); err != nil {
		return Run{}, err
	}
	trials, err := st.Trials(ctx)
	if err != nil {
		return Run{}, err
	}
	r := score(ctx, o, &sp, truth, label, seed, trials)
	if opt.Trace {
		r.Trials = traceOf(ctx, o, opt.Prior, &sp, trials)
	}
	r.ToExpert = math.NaN()
	if opt.Expert != nil {
		if v := trueValue(ctx, o, sp.WithTargetEngine(opt.Expert), sp.Objectives[0]); !math.IsNaN(v) {
			r.ToExpert = toTarget(r, v, sp.Objectives[0])
		}
	}
	return r, nil
}

// score replays a study's trials in order.
func score(ctx context.Context, o *Oracle, sp *space.Space, truth *Truth, sampler string, seed int, trials []store.Trial) Run {
	r := Run{Sampler: sampler, Seed: seed}
	obj := sp.Objectives[0]
	var incumbent *store.Trial // the best single measurement: what pruning compares with
	rep := newReporter(obj)
	gpu := 0.0
	var measured [][]float64
	for i := range trials {
		t := &trials[i]
		gpu += t.GPUSeconds
		if t.BrokeRule() {
			continue // never launched: not a trial that counts
		}
		switch t.State {
		case store.Infeasible:
			r.Infeasible++
		case store.Pruned:
			r.Pruned++
			if incumbent != nil && obj.Better(trueValue(ctx, o, t.Config, obj), trueValue(ctx, o, incumbent.Config, obj)) {
				r.FalsePrunes++
			}
		case store.Complete:
			if v := studies.Values(sp, *t)[0]; incumbent == nil || obj.Better(v, studies.Values(sp, *incumbent)[0]) {
				incumbent = t
			}
			if t.ReusedFrom == 0 {
				rep.add(t.Config, studies.Values(sp, *t)[0])
			}
			if len(sp.Objectives) > 1 {
				measured = append(measured, trueValues(ctx, o, t.Config, sp.Objectives))
			}
		}
		best := math.NaN()
		if c := rep.best(); c != nil {
			best = trueValue(ctx, o, c, obj)
		}
		r.Best = append(r.Best, best)
		r.GPUHours = append(r.GPUHours, gpu/3600)
		if len(sp.Objectives) > 1 {
			r.HV = append(r.HV, search.Hypervolume(measured, sp.Objectives, truth.Ref)/truth.FrontHV)
		}
	}
	r.Confirm = confirmOf(ctx, o, sp, trials)
	return r
}

// trueValue is c's noiseless value on obj; NaN when c fails or the
// metric is undefined (every request failed: no throughput, no TPOT).
func trueValue(ctx context.Context, o *Oracle, c space.Config, obj space.Objective) float64 {
	out := o.Eval(ctx, c)
	if out.err != nil {
		return math.NaN()
	}
	return metricOf(out, obj)
}

// metricOf is an outcome's value of obj's metric, NaN when absent: a
// missing map entry read as 0 would put a config whose requests all failed
// on the front at zero latency.
func metricOf(oc *outcome, obj space.Objective) float64 {
	if v, ok := oc.metrics[obj.Metric]; ok {
		return v
	}
	return math.NaN()
}

// objectiveValues is an outcome's values of objs; false when it failed or
// lacks one of them (a study cannot complete it).
func objectiveValues(oc *outcome, objs []space.Objective) ([]float64, bool) {
	if oc.err != nil {
		return nil, false
	}
	p := make([]float64, len(objs))
	for i, o := range objs {
		p[i] = metricOf(oc, o)
		if math.IsNaN(p[i]) {
			return nil, false
		}
	}
	return p, true
}

func trueValues(ctx context.Context, o *Oracle, c space.Config, objs []space.Objective) []float64 {
	v := make([]float64, len(objs))
	for i, obj := range objs {
		v[i] = trueValue(ctx, o, c, obj)
	}
	return v
}

// TruthOf reduces the exhaustive grid to the optimum of the first
// objective and the true front's hypervolume.
func TruthOf(t *Truth0, sp *space.Space) (*Truth, error) {
	out := &Truth{Points: len(t.Configs), Optimum: math.NaN()}
	obj := sp.Objectives[0]
	var pts [][]float64
	for _, oc := range t.Outcomes {
		p, ok := objectiveValues(oc, sp.Objectives)
		if !ok {
			continue
		}
		out.Feasible++
		if math.IsNaN(out.Optimum) || obj.Better(p[0], out.Optimum) {
			out.Optimum = p[0]
		}
		pts = append(pts, p)
	}
	if math.IsNaN(out.Optimum) {
		return nil, errNoTruth
	}
	if len(sp.Objectives) > 1 {
		var sp2 []search.Point
		for _, p := range pts {
			sp2 = append(sp2, search.Point{Values: p})
		}
		var front [][]float64
		for _, i := range search.Front(sp2, sp.Objectives) {
			front = append(front, pts[i])
		}
		out.Ref = search.ReferencePoint(front, sp.Objectives)
		out.FrontHV = search.Hypervolume(front, sp.Objectives, out.Ref)
	}
	return out, nil
}

func last(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return xs[len(xs)-1]
}

func median(xs []float64) float64 {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// toTarget is the GPU time at the first trial whose reported best is at
// least v (+Inf when never).
func toTarget(r Run, v float64, obj space.Objective) float64 {
	for i, b := range r.Best {
		if !math.IsNaN(b) && !obj.Better(v, b) {
			return r.GPUHours[i]
		}
	}
	return math.Inf(1)
}

// Expert is the recommended config of the landscape's seed report (nil
// when it has none): GLM-5.2's SGLang DP-attention + DeepEP + FP8 KV
// config at memory fraction 0.85, 256 running requests.
func Expert(landscape string) space.Config {
	if landscape != "glm52" {
		return nil
	}
	return space.Config{"engine": engines.SGLang, "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "ep": int64(8),
		"mem_fraction": 0.85, "chunked_prefill": space.Default, "max_running": int64(256), "moe_a2a_backend": "deepep",
		"deepep_mode": "auto", "kv_cache_dtype": "fp8_e4m3"}
}
