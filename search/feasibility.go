package search

import (
	"fmt"
	"math"
	"strings"

	"github.com/servetune/servetune/space"
)

// Feasibility learns infeasible regions from the study's own failures, so
// that a sampler stops proposing configs known to run out of memory or to
// be rejected by the engine, without the user writing a rule.
//
// Out of memory: a monotone memory-pressure model. Pressure knobs are
// those whose increase can only raise memory use: mem_fraction,
// chunked_prefill, max_running, cuda_graph_max_bs,
// speculative_num_draft_tokens, kv_cache_dtype (auto/bf16/fp16 above any
// fp8), model_variant (BF16 above FP8 above FP4/INT4) and tp reversed
// (fewer GPUs per replica hold more of the model each). A config is
// predicted to OOM when some OOM trial agrees with it on every other knob
// and it is at least as high on every pressure knob. A config at most as
// high as a trial that completed, with the same other knobs, is predicted
// safe, and that overrides any OOM evidence (measurements are noisy, and a
// run that worked is the stronger fact). "default", or a knob present in
// one config and absent from the other, cannot be ranked: the engine
// chooses the value, so no prediction is made from that trial.
//
// Refused knob: an invalid_config failure whose message says the engine
// does not take a knob rules out every config with that engine and that
// knob value at once, whatever the other knobs, unless a completed trial
// has the same pair.
//
// Invalid config: predicted when the config matches an invalid_config
// trial on every categorical, boolean and integer knob (floats are
// ignored: engines reject combinations of features, not fractions), unless
// a completed trial also matches it on all of them.
//
// The model never extrapolates beyond what was measured: it only ever
// declares configs "at least as bad" as a failure, so a wrong prediction
// needs a wrong or noisy observation. It is pure, deterministic and not
// safe for concurrent use.
type Feasibility struct {
	sp               *space.Space
	ok, oom, invalid []space.Config
	// refused are engine/knob pairs an engine rejected outright.
	refused []refusal
}

// Failure classes the model learns from.
const (
	ClassOOM     = "oom"
	ClassInvalid = "invalid_config"
)

// NewFeasibility returns a model with no evidence: it predicts nothing.
func NewFeasibility(sp *space.Space) *Feasibility {
	return &Feasibility{sp: sp}
}

// Tell adds a finished trial's evidence. Other failure classes (crashes,
// timeouts, rule violations) say nothing about memory or validity.
func (f *Feasibility) Tell(o Observation) {
	c := f.sp.WithTargetEngine(o.Config)
	switch {
	case o.Class == ClassOOM:
		f.oom = append(f.oom, c)
	case o.Class == ClassInvalid:
		f.invalid = append(f.invalid, c)
		if k, ok := refusedKnob(o.Message, c); ok {
			f.refused = append(f.refused, refusal{engine: c.Engine(), knob: k, value: c[k]})
		}
	case o.State == Complete:
		f.ok = append(f.ok, c)
	}
}

// Predict reports whether c is predicted infeasible, and why.
func (f *Feasibility) Predict(c space.Config) (infeasible bool, reason string) {
	c = f.sp.WithTargetEngine(c)
	if r, ok := f.refusedIn(c); ok {
		return true, fmt.Sprintf("predicted invalid_config: %s does not take %s=%s", r.engine, r.knob, space.FormatValue(r.value))
	}
	for _, o := range f.ok {
		if pressureAtMost(c, o) {
			return false, ""
		}
	}
	for _, o := range f.oom {
		if pressureAtMost(o, c) {
			return true, fmt.Sprintf("predicted oom: at least the memory pressure of a trial that ran out of memory (%s)", o.Summary())
		}
	}
	for _, o := range f.invalid {
		if !f.discreteMatch(c, o) {
			continue
		}
		for _, ok := range f.ok {
			if f.discreteMatch(c, ok) {
				return false, ""
			}
		}
		return true, fmt.Sprintf("predicted invalid_config: the same engine settings as a trial the engine rejected (%s)", o.Summary())
	}
	return false, ""
}

// pressureAtMost reports whether a and b agree on every knob that is not a
// pressure knob and a is at most as high as b on every pressure knob.
func pressureAtMost(a, b space.Config) bool {
	for _, k := range UnionKeys(a, b) {
		va, inA := a[k]
		vb, inB := b[k]
		if inA != inB {
			return false
		}
		if SameValue(va, vb) {
			continue
		}
		ra, okA := PressureRank(k, va)
		rb, okB := PressureRank(k, vb)
		if !okA || !okB || ra > rb {
			return false
		}
	}
	return true
}

// PressureRank orders a pressure knob's values by memory use, higher is
// more; ok is false for a knob that is not a pressure knob or a value
// that cannot be ranked ("default", an unknown dtype).
func PressureRank(knob string, v any) (rank float64, ok bool) {
	switch knob {
	case "mem_fraction", "chunked_prefill", "max_running", "cuda_graph_max_bs", "speculative_num_draft_tokens":
		return space.Number(v, true)
	case "tp":
		n, ok := space.Number(v, true)
		return -n, ok
	case "kv_cache_dtype":
		s := strings.ToLower(space.FormatValue(v))
		switch {
		case strings.HasPrefix(s, "fp8"):
			return 0, true
		case s == "auto" || s == "bf16" || s == "bfloat16" || s == "fp16" || s == "float16" || s == "half":
			return 1, true
		}
	case "model_variant":
		s := strings.ToLower(space.FormatValue(v))
		switch {
		case strings.Contains(s, "fp4") || strings.Contains(s, "int4") || strings.Contains(s, "awq") || strings.Contains(s, "gptq"):
			return 0, true
		case strings.Contains(s, "fp8") || strings.Contains(s, "int8"):
			return 1, true
		case strings.Contains(s, "bf16") || strings.Contains(s, "fp16"):
			return 2, true
		}
	}
	return 0, false
}

// discreteMatch reports whether a and b agree on every knob that is not a
// float.
func (f *Feasibility) discreteMatch(a, b space.Config) bool {
	for _, k := range UnionKeys(a, b) {
		va, inA := a[k]
		vb, inB := b[k]
		if f.isFloat(k, va) && f.isFloat(k, vb) {
			continue
		}
		if inA != inB || !SameValue(va, vb) {
			return false
		}
	}
	return true
}

// isFloat reports whether knob k is a float knob (by its declared kind, or
// by the value when the space does not declare it). An absent value takes
// the declared kind.
func (f *Feasibility) isFloat(k string, v any) bool {
	if p, ok := f.sp.Param(k); ok {
		return p.Kind == space.Float
	}
	_, isFloat := v.(float64)
	return isFloat
}

func SameValue(a, b any) bool {
	// Number-typed values only, not numeric strings: a float knob stored
	// as 1 and read back as int64 1 is the same value.
	fa, numA := space.Number(space.Normalize(a), false)
	fb, numB := space.Number(space.Normalize(b), false)
	if numA && numB {
		return math.Abs(fa-fb) <= 1e-9*math.Max(1, math.Abs(fa))
	}
	return numA == numB && space.FormatValue(a) == space.FormatValue(b)
}

func UnionKeys(a, b space.Config) []string {
	keys := a.Keys()
	for _, k := range b.Keys() {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	return keys
}
