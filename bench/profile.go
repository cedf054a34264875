package bench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/servetune/servetune/internal/suggest"
)

// Profile is one benchmark workload: which prompts, how many, and how fast
// they arrive. The same struct is decoded from the space TOML (custom
// profiles), looked up by name (built-ins), consumed by the load generator
// and by the simulator, so a profile means the same thing everywhere.
type Profile struct {
	Name string `toml:"-" json:"name"`

	// Dataset is "random" (default), "sharegpt", "jsonl", "shared_prefix"
	// or "trace".
	Dataset     string `toml:"dataset" json:"dataset"`
	DatasetPath string `toml:"dataset_path" json:"dataset_path,omitempty"`

	// Random dataset shape, as `vllm bench serve --dataset-name random`.
	// For sharegpt, a non-zero OutputLen replaces the reference reply length
	// (vllm's --sharegpt-output-len).
	InputLen   int     `toml:"input_len" json:"input_len,omitempty"`
	OutputLen  int     `toml:"output_len" json:"output_len,omitempty"`
	RangeRatio float64 `toml:"range_ratio" json:"range_ratio,omitempty"`
	PrefixLen  int     `toml:"prefix_len" json:"prefix_len,omitempty"`

	// SharedPrefix shapes the shared_prefix dataset (inference-perf's).
	SharedPrefix *SharedPrefix `toml:"shared_prefix" json:"shared_prefix,omitempty"`
	// Trace shapes the replay of the trace dataset's file (trace.go).
	Trace *Trace `toml:"trace" json:"trace,omitempty"`

	NumPrompts int `toml:"num_prompts" json:"num_prompts"`
	// RequestRate is in requests per second; +Inf (TOML `inf`) sends all at once.
	RequestRate float64 `toml:"request_rate" json:"request_rate"`
	// Burstiness is the gamma shape factor of inter-arrival times; 1 is Poisson.
	Burstiness     float64       `toml:"burstiness" json:"burstiness,omitempty"`
	MaxConcurrency int           `toml:"max_concurrency" json:"max_concurrency,omitempty"`
	Warmup         int           `toml:"warmup" json:"warmup,omitempty"`
	MaxDuration    time.Duration `toml:"max_duration" json:"max_duration,omitempty"`
	Seed           int64         `toml:"seed" json:"seed"`
	// Stages replace num_prompts and request_rate with phases of Poisson
	// load, reported one by one and together (Metrics.Stages).
	Stages []Stage `toml:"stages" json:"stages,omitempty"`
	// Percentiles are reported besides the defaults (p50, p90, p95, p99).
	Percentiles []float64 `toml:"percentiles" json:"percentiles,omitempty"`

	// Endpoint is "completions" (default) or "chat".
	Endpoint string `toml:"endpoint" json:"endpoint,omitempty"`
	// TextPrompts sends prompts as strings instead of token-id lists, for
	// servers that only take strings (Ollama, llama.cpp).
	TextPrompts bool `toml:"text_prompts" json:"text_prompts,omitempty"`
	// NoIgnoreEOS stops sending `ignore_eos: true`, for servers that reject it.
	NoIgnoreEOS bool `toml:"no_ignore_eos" json:"no_ignore_eos,omitempty"`

	// SLO bounds the requests counted by goodput_rps and slo_attainment;
	// nil leaves both undefined. A space's [slo] fills it for profiles
	// that set none.
	SLO *SLO `toml:"slo" json:"slo,omitempty"`
	// Kind is "load" (default) or "quality": a quality profile decodes
	// greedily (temperature 0, stopping at end of sequence), keeps each
	// reply's text and scores it (Quality).
	Kind string `toml:"kind" json:"kind,omitempty"`
	// SearchRate makes a trial look for the highest request rate this
	// profile sustains within its SLO instead of running it once.
	SearchRate *RateSearch `toml:"search_rate" json:"search_rate,omitempty"`
}

// RateSearch bounds the search for the highest request rate (req/s)
// whose SLO attainment is at least Attainment.
type RateSearch struct {
	Attainment float64 `toml:"attainment" json:"attainment"`
	Low        float64 `toml:"low" json:"low"`
	High       float64 `toml:"high" json:"high"`
}

// Unlimited reports whether requests are all sent at time zero.
func (p Profile) Unlimited() bool {
	return len(p.Stages) == 0 && p.DatasetName() != DatasetTrace && (p.RequestRate <= 0 || math.IsInf(p.RequestRate, 1))
}

// Dataset names.
const (
	DatasetRandom   = "random"
	DatasetShareGPT = "sharegpt"
	DatasetJSONL    = "jsonl"
	// DatasetSharedPrefix is inference-perf's shared_prefix.
	DatasetSharedPrefix = "shared_prefix"
)

// Profile kinds.
const (
	KindLoad    = "load"
	KindQuality = "quality"
)

// Quality reports whether the profile scores replies rather than load.
func (p Profile) Quality() bool { return p.Kind == KindQuality }

// Endpoint names.
const (
	EndpointCompletions = "completions"
	EndpointChat        = "chat"
)

// DatasetName is Dataset with the default applied.
func (p Profile) DatasetName() string {
	if p.Dataset == "" {
		return DatasetRandom
	}
	return p.Dataset
}

// EndpointName is Endpoint with the default applied.
func (p Profile) EndpointName() string {
	if p.Endpoint == "" {
		return EndpointCompletions
	}
	return p.Endpoint
}

// BurstinessFactor is Burstiness with the default (1, Poisson) applied.
func (p Profile) BurstinessFactor() float64 {
	if p.Burstiness == 0 {
		return 1
	}
	return p.Burstiness
}

// Problem is one invalid field of a profile, named by its TOML key, so a
// space loader can point at the file, line and key that hold it.
type Problem struct {
	Key string // e.g. "input_len"
	Msg string // e.g. "must be > 0 for the random dataset, not 0"
}

func (p Problem) Error() string { return p.Key + " " + p.Msg }

// Validate reports every problem with the profile at once (Problems,
// joined), so a space file with several mistakes is fixed in one round.
func (p Profile) Validate() error {
	probs := p.Problems()
	if len(probs) == 0 {
		return nil
	}
	errs := make([]error, len(probs))
	for i, pr := range probs {
		errs[i] = pr
	}
	if p.Name != "" {
		return fmt.Errorf("profile %s: %w", p.Name, errors.Join(errs...))
	}
	return fmt.Errorf("profile: %w", errors.Join(errs...))
}

// Problems lists what is wrong with the profile, in field order; none
// means it is valid.
func (p Profile) Problems() []Problem {
	var probs []Problem
	bad := func(key, format string, a ...any) { probs = append(probs, Problem{key, fmt.Sprintf(format, a...)}) }
	p.datasetProblems(bad)
	if p.RangeRatio < 0 || p.RangeRatio >= 1 || math.IsNaN(p.RangeRatio) {
		bad("range_ratio", "must be in [0, 1), not %v", p.RangeRatio)
	}
	if p.PrefixLen < 0 {
		bad("prefix_len", "must be >= 0, not %d", p.PrefixLen)
	}
	switch {
	case p.Stages != nil && len(p.Stages) == 0:
		bad("stages", "is empty: list at least one {rate, duration}, or leave stages out and set num_prompts")
	case p.NumPrompts <= 0 && len(p.Stages) == 0 && p.DatasetName() != DatasetTrace:
		bad("num_prompts", "must be > 0, not %d", p.NumPrompts)
	}
	p.stageProblems(bad)
	for i, q := range p.Percentiles {
		if !(q > 0 && q < 100) {
			bad("percentiles", "must each be in (0, 100), not %v", q)
		} else if slices.Contains(p.Percentiles[:i], q) {
			// Reported once whatever the count: the second is a slip.
			bad("percentiles", "lists %v twice", q)
		}
	}
	if p.RequestRate < 0 || math.IsNaN(p.RequestRate) {
		bad("request_rate", "must be > 0 or inf, not %v", p.RequestRate)
	}
	if p.Burstiness < 0 || math.IsNaN(p.Burstiness) {
		bad("burstiness", "must be > 0, not %v", p.Burstiness)
	}
	if p.MaxConcurrency < 0 {
		bad("max_concurrency", "must be >= 0 (0 = unlimited), not %d", p.MaxConcurrency)
	}
	if p.Warmup < 0 {
		bad("warmup", "must be >= 0, not %d", p.Warmup)
	}
	if p.MaxDuration < 0 {
		bad("max_duration", "must be >= 0, not %v", p.MaxDuration)
	}
	if e := p.EndpointName(); e != EndpointCompletions && e != EndpointChat {
		bad("endpoint", "must be completions or chat, not %q%s", p.Endpoint, suggest.Hint(p.Endpoint, []string{EndpointCompletions, EndpointChat}))
	}
	if k := p.Kind; k != "" && k != KindLoad && k != KindQuality {
		bad("kind", "must be load or quality, not %q%s", k, suggest.Hint(k, []string{KindLoad, KindQuality}))
	}
	if p.Kind == KindQuality && p.SearchRate != nil {
		bad("search_rate", "does not apply to a quality profile")
	}
	p.SLO.problems(bad)
	p.SearchRate.problems(bad)
	if len(probs) == 0 {
		p.boundProblems(bad)
	}
	return probs
}

// datasetProblems checks the dataset and the fields it needs.
func (p Profile) datasetProblems(bad func(key, format string, a ...any)) {
	switch p.DatasetName() {
	case DatasetRandom:
		p.unusedTables(bad)
		if p.InputLen <= 0 {
			bad("input_len", "must be > 0 for the random dataset, not %d", p.InputLen)
		}
		if p.OutputLen <= 0 {
			bad("output_len", "must be > 0 for the random dataset, not %d", p.OutputLen)
		}
		if p.DatasetPath != "" {
			bad("dataset_path", "is not used by the random dataset")
		}
	case DatasetShareGPT:
		p.unusedTables(bad)
		if p.OutputLen < 0 {
			bad("output_len", "must be >= 0, not %d", p.OutputLen)
		}
	case DatasetJSONL:
		p.unusedTables(bad)
		if p.DatasetPath == "" {
			bad("dataset_path", "is required for the jsonl dataset")
		}
	case DatasetSharedPrefix:
		p.unusedTables(bad)
		p.SharedPrefix.problems(bad)
		if p.DatasetPath != "" {
			bad("dataset_path", "is not used by the shared_prefix dataset")
		}
		if p.InputLen != 0 || p.OutputLen != 0 || p.PrefixLen != 0 {
			bad("input_len", "output_len and prefix_len are not used by shared_prefix (set its table's lengths)")
		}
	case DatasetTrace:
		p.unusedTables(bad)
		p.traceProblems(bad)
	default:
		bad("dataset", "must be random, sharegpt, jsonl, shared_prefix or trace, not %q%s", p.Dataset,
			suggest.Hint(p.Dataset, []string{DatasetRandom, DatasetShareGPT, DatasetJSONL, DatasetSharedPrefix, DatasetTrace}))
	}
}

// unusedTables refuses a dataset's table (shared_prefix, trace) on
// another dataset: it would be silently ignored, and the profile would
// not be what its author described.
func (p Profile) unusedTables(bad func(key, format string, a ...any)) {
	for _, t := range []struct {
		key, dataset string
		set          bool
	}{
		{"shared_prefix", DatasetSharedPrefix, p.SharedPrefix != nil},
		{"trace", DatasetTrace, p.Trace != nil},
	} {
		if t.set && p.DatasetName() != t.dataset {
			bad(t.key, "is used only by dataset = %q, not by %q: set dataset = %q or remove the table",
				t.dataset, p.DatasetName(), t.dataset)
		}
	}
}
