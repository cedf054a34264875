package measure

import (
	"fmt"
	"math"
)

// metricError is a problem with one metric of a result, so the error can
// name the result's key and line.
type metricError struct {
	key string // the result's own key (mean_ttft_ms)
	msg string
}

func (e *metricError) Error() string { return e.key + " " + e.msg }

// Latencies are in milliseconds. A file whose latencies are in seconds
// loads as a server hundreds of times faster than any, and a fit from it
// drives every factor to its bound without a word, so the unit is
// checked: no LLM server measured over HTTP returns its first token in
// under 1 ms, nor streams tokens less than 1 ms apart on average, so when
// every mean TTFT, TPOT and ITL a run gives is below 1 (at least one
// given), the run "looks like seconds" and is refused with that reason.
const secondsBelowMs = 1.0

// LooksLikeSeconds reports whether mean latencies (ms; 0 or NaN for an
// absent one) are all below what a real server measures in milliseconds.
func LooksLikeSeconds(means ...float64) bool {
	given := false
	for _, v := range means {
		if v == 0 || math.IsNaN(v) {
			continue
		}
		if v >= secondsBelowMs {
			return false
		}
		given = true
	}
	return given
}

// valueProblem refuses a metric that cannot be measured: a negative or
// non-finite latency or throughput (0 is kept out silently: vLLM writes 0
// for an undefined goodput or a one-token TPOT).
func valueProblem(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return &metricError{name, fmt.Sprintf("is %v: a measured metric must be a finite number >= 0", v)}
	}
	return nil
}

// unitProblem is the "looks like seconds" refusal of a run's values.
func unitProblem(values map[string]float64) error {
	ttft, tpot, itl := values["mean_ttft_ms"], values["mean_tpot_ms"], values["mean_itl_ms"]
	if !LooksLikeSeconds(ttft, tpot, itl) {
		return nil
	}
	return &metricError{"mean_ttft_ms", fmt.Sprintf("and the other latencies look like seconds, not milliseconds (mean_ttft_ms %v, mean_tpot_ms %v, mean_itl_ms %v: every one below %v ms, faster than any server): give them in milliseconds",
		ttft, tpot, itl, secondsBelowMs)}
}
