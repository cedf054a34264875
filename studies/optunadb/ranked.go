package optunadb

import (
	"math"
	"slices"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// ranked is one config as servetune ranks it (studies.Measured), with
// the trial numbers the export names it by.
type ranked struct {
	studies.Measured
	// first is the trial number of its first measurement, the one trial
	// Optuna sees COMPLETE; numbers are all of them, oldest first.
	first   int
	numbers []int
	// measurements are each measurement's objective values, for the
	// first's attribute "measurements" (null where undefined).
	measurements []map[string]any
}

// rankedByTrial maps every complete measurement's trial number to its
// config (reused trials are none: they copy another's measurement).
func rankedByTrial(sp *space.Space, all []store.Trial) map[int]*ranked {
	out := map[int]*ranked{}
	for _, m := range studies.MeasuredConfigs(sp, all) {
		r := &ranked{Measured: m, first: all[m.Runs[0]].Number}
		for _, i := range m.Runs {
			r.numbers = append(r.numbers, all[i].Number)
			r.measurements = append(r.measurements, map[string]any{"trial": all[i].Number, "values": finite(studies.Values(sp, all[i]))})
			out[all[i].Number] = r
		}
	}
	return out
}

// withConfigMates is which with every other measurement of the configs
// it measured, in all's order.
func withConfigMates(all, which []store.Trial, rs map[int]*ranked) []store.Trial {
	want := map[int]bool{}
	for _, t := range which {
		want[t.Number] = true
		if r := rs[t.Number]; r != nil {
			for _, n := range r.numbers {
				want[n] = true
			}
		}
	}
	if len(want) == len(which) {
		return which
	}
	out := make([]store.Trial, 0, len(want))
	for _, t := range all {
		if want[t.Number] {
			out = append(out, t)
			delete(want, t.Number)
		}
	}
	for _, t := range which { // not (yet) in all
		if want[t.Number] {
			out = append(out, t)
		}
	}
	return out
}

// finite is xs with NaN and ±Inf as nil, which JSON can hold.
func finite(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out[i] = x
		}
	}
	return slices.Clip(out)
}
