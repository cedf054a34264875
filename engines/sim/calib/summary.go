package calib

import (
	"math"
	"sort"
)

// MetricError is the simulator's error on one metric: |log(simulated /
// measured)| over the values it simulated.
type MetricError struct {
	Metric string
	// N values compared; Refused more the simulator refused (an OOM for
	// a config that ran), not in Median and Max.
	N, Refused  int
	Median, Max float64
}

// Summarize gives each metric's error, metrics in order of first
// appearance in labels.
func Summarize(labels []string, pred, measured []float64) []MetricError {
	var order []string
	errs := map[string][]float64{}
	refused := map[string]int{}
	for i, l := range labels {
		if _, seen := errs[l]; !seen {
			order = append(order, l)
			errs[l] = nil
		}
		if pred[i] > 0 && !math.IsInf(pred[i], 0) {
			errs[l] = append(errs[l], math.Abs(math.Log(pred[i]/measured[i])))
		} else {
			refused[l]++
		}
	}
	out := make([]MetricError, 0, len(order))
	for _, l := range order {
		e := MetricError{Metric: l, N: len(errs[l]), Refused: refused[l]}
		if len(errs[l]) > 0 {
			sort.Float64s(errs[l])
			e.Median, e.Max = median(errs[l]), errs[l][len(errs[l])-1]
		}
		out = append(out, e)
	}
	return out
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Percent turns a |log ratio| into the percentage error it stands for
// (ln 1.25 → 25%).
func Percent(logRatio float64) float64 { return (math.Exp(logRatio) - 1) * 100 }
