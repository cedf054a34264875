package bench

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/servetune/servetune/internal/suggest"
)

// DatasetTrace replays a production trace: its arrival times, input and
// output lengths and shared-prefix blocks (docs/space.md, *Trace replay*).
const DatasetTrace = "trace"

// Trace formats.
const (
	TraceMooncake = "mooncake"
	TraceAzure    = "azure"
	TraceBurstGPT = "burstgpt"
	TraceGeneric  = "generic"
)

var traceFormats = []string{TraceMooncake, TraceAzure, TraceBurstGPT, TraceGeneric}

// Bounds on what a trace may ask of one plan: a file bigger than
// maxTraceBytes is refused before it is read, and a window holding more
// than maxTraceRequests requests is refused while it is read, so a week-long
// trace named by mistake fails at once instead of filling the memory.
const (
	maxTraceBytes    = 1 << 30
	maxTraceRequests = 1_000_000
	// maxTraceTokens bounds one request's input or output length: far past
	// any served context, well inside int on every platform.
	maxTraceTokens = 1 << 24
	// defaultBlockTokens is the block size of Mooncake's released traces:
	// each hash_ids entry stands for 512 prompt tokens.
	defaultBlockTokens = 512
)

// Trace shapes the replay of a trace file (the profile's dataset_path).
// Times are the trace's own: Start and Duration cut the window out of it,
// measured from its first request, before Speedup compresses it.
type Trace struct {
	// Format is mooncake, azure, burstgpt or generic; empty detects it
	// from the file's extension and first line.
	Format string `toml:"format" json:"format,omitempty"`
	// Speedup divides every gap between arrivals: 2 replays an hour of
	// traffic in 30 minutes, at twice the rate.
	Speedup float64 `toml:"speedup" json:"speedup,omitempty"`
	// Start and Duration select the window [Start, Start+Duration) of the
	// trace; zero Duration runs to its end.
	Start    time.Duration `toml:"start" json:"start,omitempty"`
	Duration time.Duration `toml:"duration" json:"duration,omitempty"`
	// Sample keeps each request of the window with this probability,
	// drawn from the profile's seed (0 or 1 keeps all).
	Sample float64 `toml:"sample" json:"sample,omitempty"`
	// BlockTokens is how many prompt tokens one prefix hash stands for.
	BlockTokens int `toml:"block_tokens" json:"block_tokens,omitempty"`
}

// speedup is Speedup with its default, 1.
func (t *Trace) speedup() float64 {
	if t == nil || t.Speedup == 0 {
		return 1
	}
	return t.Speedup
}

// sample is Sample with its default, 1 (keep everything).
func (t *Trace) sample() float64 {
	if t == nil || t.Sample == 0 {
		return 1
	}
	return t.Sample
}

// blockTokens is BlockTokens with its default.
func (t *Trace) blockTokens() int {
	if t == nil || t.BlockTokens == 0 {
		return defaultBlockTokens
	}
	return t.BlockTokens
}

// traceProblems checks a trace profile's fields: the file, the trace
// table, and the fields whose job the trace does (lengths, rate, stages).
func (p Profile) traceProblems(bad func(key, format string, a ...any)) {
	if p.DatasetPath == "" {
		bad("dataset_path", "is required for the trace dataset (the trace file)")
	}
	unused := func(key string, set bool, why string) {
		if set {
			bad(key, "is not used by the trace dataset: %s", why)
		}
	}
	lengths := "the trace gives each request's lengths"
	unused("input_len", p.InputLen != 0, lengths)
	unused("output_len", p.OutputLen != 0, lengths)
	unused("prefix_len", p.PrefixLen != 0, "the trace's hashes give its shared prefixes")
	unused("range_ratio", p.RangeRatio != 0, lengths)
	arrivals := "arrivals are the trace's (scale them with trace.speedup)"
	unused("request_rate", p.RequestRate != 0, arrivals)
	unused("burstiness", p.Burstiness != 0, arrivals)
	if len(p.Stages) > 0 {
		bad("stages", "do not apply to the trace dataset (cut a window with trace.start and trace.duration)")
	}
	if p.SearchRate != nil {
		bad("search_rate", "does not apply to the trace dataset (its rate is the trace's)")
	}
	if p.NumPrompts < 0 || p.NumPrompts > maxTraceRequests {
		bad("num_prompts", "caps the trace's requests: must be in [0, %d] (0 = all in the window), not %d", maxTraceRequests, p.NumPrompts)
	}
	p.Trace.problems(bad)
}

func (t *Trace) problems(bad func(key, format string, a ...any)) {
	if t == nil {
		return
	}
	if f := t.Format; f != "" && !slices.Contains(traceFormats, f) {
		bad("trace.format", "must be mooncake, azure, burstgpt or generic, not %q%s", f, suggest.Hint(f, traceFormats))
	}
	if t.Speedup < 0 || math.IsNaN(t.Speedup) || math.IsInf(t.Speedup, 0) {
		bad("trace.speedup", "must be a finite number > 0, not %v", t.Speedup)
	}
	if t.Start < 0 {
		bad("trace.start", "must be >= 0, not %v", t.Start)
	}
	if t.Duration < 0 {
		bad("trace.duration", "must be >= 0 (0 = to the end of the trace), not %v", t.Duration)
	}
	if sp := t.speedup(); t.Duration > 0 && sp > 0 && t.Duration.Seconds()/sp > MaxSpan.Seconds() {
		bad("trace.duration", "replays in %s at speedup %v, longer than the %v a profile may run", secs(t.Duration.Seconds()/sp), sp, MaxSpan)
	}
	if !(t.Sample >= 0 && t.Sample <= 1) {
		bad("trace.sample", "must be in (0, 1] (0 = keep all), not %v", t.Sample)
	}
	if t.BlockTokens < 0 || t.BlockTokens > maxTraceTokens {
		bad("trace.block_tokens", "must be in [1, %d] (0 = %d), not %d", maxTraceTokens, defaultBlockTokens, t.BlockTokens)
	}
}

// traceArrivalSpan is how long the replay's arrivals take when the window
// says (duration / speedup); 0 when it runs to the trace's unknown end.
func (p Profile) traceArrivalSpan() time.Duration {
	if p.Trace == nil || p.Trace.Duration == 0 {
		return 0
	}
	return time.Duration(float64(p.Trace.Duration) / p.Trace.speedup())
}

func (t *Trace) String() string {
	if t == nil {
		return "whole trace"
	}
	s := fmt.Sprintf("from %v", t.Start)
	if t.Duration > 0 {
		s += fmt.Sprintf(" for %v", t.Duration)
	}
	if t.Speedup != 0 && t.Speedup != 1 {
		s += fmt.Sprintf(", %gx speed", t.Speedup)
	}
	if t.Sample != 0 && t.Sample != 1 {
		s += fmt.Sprintf(", %g sampled", t.Sample)
	}
	return s
}
