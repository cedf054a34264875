package space

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/servetune/servetune/internal/suggest"
)

// maxCount bounds the counts and lengths of known knobs (2^30: a billion
// tokens of context or requests in flight).
const maxCount = 1 << 30

// legal is the domain a known knob can take on any engine: a value
// outside it fails every trial that uses it, so a space that can produce
// one is refused at load.
type legal struct {
	integer bool
	// min and max bound the value; above0 excludes min itself.
	min, max float64
	above0   bool
	// also is one more legal value below min (SGLang's chunked prefill -1).
	also *float64
	// enum, when set, is the knob's whole domain: strings only.
	enum []string
	// boolean is a switch: true or false (or their strings, which
	// Config.Bool reads). 0 and 1 are not: an engine renders a bool knob
	// as a flag present or absent, and read as a number 1 set nothing.
	boolean bool
	desc    string
}

func (l legal) ok(f float64) bool {
	if l.also != nil && f == *l.also {
		return true
	}
	if l.integer && f != math.Trunc(f) {
		return false
	}
	if f < l.min || f > l.max || (l.above0 && f == 0) {
		return false
	}
	return true
}

// knownDomain returns the legal domain of a knob whose meaning servetune
// knows; ok is false for other knobs (strings, bools, engine-specific).
func knownDomain(knob string) (legal, bool) {
	// Counts are bounded so that a typo's extra zeros cannot size a plan:
	// GPUs (parallelism, servers) by MaxGPUs, other counts by maxCount.
	count := legal{integer: true, min: 1, max: maxCount, desc: "an integer >= 1"}
	gpus := legal{integer: true, min: 1, max: MaxGPUs, desc: "an integer >= 1"}
	switch knob {
	case "disaggregation":
		return legal{enum: []string{"none", "pd"}, desc: `"none" or "pd"`}, true
	case "prefill_instances", "decode_instances", "tp", "dp", "pp", "ep":
		return gpus, true
	case "prefix_caching", "enable_dp_attention", "torch_compile", "disable_cuda_graph", "flash_attention":
		return legal{boolean: true, desc: "true or false"}, true
	}
	// A disaggregated deployment's per-side knob (prefill_tp, decode_mem_fraction)
	// means on its side what the aggregated knob means.
	for _, side := range []string{"prefill_", "decode_"} {
		if rest, ok := strings.CutPrefix(knob, side); ok {
			if l, ok := knownDomain(rest); ok && rest != "disaggregation" {
				return l, true
			}
		}
	}
	switch knob {
	case "max_running", "cuda_graph_max_bs",
		"speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
		"speculative_num_tokens", "max_queue", "num_ctx", "num_batch", "num_thread":
		return count, true
	case "chunked_prefill":
		off := -1.0
		return legal{integer: true, min: 1, max: maxCount, also: &off, desc: "an integer >= 1, or -1 (SGLang: no chunking)"}, true
	case "mem_fraction":
		return legal{min: 0, max: 1, above0: true, desc: "a fraction in (0, 1]"}, true
	case "max_model_len":
		auto := -1.0
		return legal{integer: true, min: 1, max: maxCount, also: &auto, desc: "an integer >= 1, or -1 (vLLM: auto, what fits)"}, true
	case "kv_offload_gb":
		return legal{min: 0, max: 1 << 20, desc: "GiB of host memory >= 0 (0: no offload)"}, true
	}
	return legal{}, false
}

// CheckValue reports a value no engine can take for the knob: NaN or an
// infinity for any knob, and for known knobs a value outside their legal
// domain (parallelism below 1, mem_fraction above 1, ...). "default" is
// always legal: it passes no flag.
func CheckValue(knob string, v any) error {
	if s, ok := v.(string); ok && s == Default {
		return nil
	}
	if f, ok := Normalize(v).(float64); ok && !isFinite(f) {
		return fmt.Errorf("%v is not a finite number", f)
	}
	l, known := knownDomain(knob)
	if !known {
		return nil
	}
	if l.enum != nil {
		return l.checkEnum(knob, v)
	}
	if l.boolean {
		switch x := v.(type) {
		case bool:
			return nil
		case string:
			if x == "true" || x == "false" {
				return nil
			}
		}
		return fmt.Errorf("%s is a switch: must be %s, got %s", knob, l.desc, typeName(v))
	}
	f, ok := Number(v, false)
	if ok && f > l.max && l.integer {
		return fmt.Errorf("%s is %s, more than %s, the most %s may be (a typo?)", knob, describe(v), FormatValue(l.max), knob)
	}
	if !ok || !l.ok(f) {
		return fmt.Errorf("%s must be %s, got %s", knob, l.desc, describe(v))
	}
	return nil
}

// describe names a value with its type when the type matters.
func describe(v any) string {
	if _, ok := v.(string); ok {
		return fmt.Sprintf("%q", v)
	}
	return FormatValue(v)
}

// checkEnum reports a value outside an enumerated knob's strings, with
// the nearest one when it looks like a typo.
func (l legal) checkEnum(knob string, v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s must be %s, got %s (a %T)", knob, l.desc, describe(v), v)
	}
	if !slices.Contains(l.enum, s) {
		return fmt.Errorf("%s must be %s, got %q%s", knob, l.desc, s, suggest.Hint(s, l.enum))
	}
	return nil
}
