package fidelity

import (
	"math"
	"slices"
	"sort"

	"github.com/servetune/servetune/engines/sim"
)

// Coverage is how often the measured values fell within the stated
// intervals, per metric, in %: "stated" with the simulator's built-in
// spreads (sim.LOOSpreads, what a user sees), "nested" with spreads taken
// from this report's other runs only (each run's intervals built without
// its own errors: the honest figure when the report is leave-one-out).
//
// NestedH80 and NestedH95 are the median log-space half-widths of the
// nested intervals over the rows (0.1: about ±10%): coverage alone would
// reward an interval for being wide, so its width is reported beside it.
type Coverage struct {
	Rows      map[string]int     `json:"rows"`
	Stated80  map[string]float64 `json:"stated80_pct"`
	Stated95  map[string]float64 `json:"stated95_pct"`
	Nested80  map[string]float64 `json:"nested80_pct,omitempty"`
	Nested95  map[string]float64 `json:"nested95_pct,omitempty"`
	NestedH80 map[string]float64 `json:"nested80_half_width,omitempty"`
	NestedH95 map[string]float64 `json:"nested95_half_width,omitempty"`
}

// Spreads are the log-space error spreads of runs' stage rows (simulated
// vs measured), per metric: what sim.LOOSpreads holds for the
// leave-one-out report. Bias is the median error over the rows; H80 and
// H95 are calibrated quantiles (see calibrated) of each row's deviation
// from the median of the other runs' errors, not of all of them: a new
// run's deviation is measured from a median its own error did not enter,
// so a calibration row's must be too, or its score is in-sample and
// small (the cross-conformal principle; the nested 80% coverage of
// itl_mean was 71% with in-sample scores). The finite-sample correction
// counts the effective number of independent rows (effectiveUnits): a
// run's stages share its model, GPU and fit, so its rows are fewer units
// than rows, but not one unit each when their scores barely move
// together. docs/sim.md, "Stated uncertainty"; docs/benchmarks.md, issue
// 45 (the constructions tried and their coverage).
func Spreads(runs [][]Row) map[string]sim.Spread {
	out := map[string]sim.Spread{}
	for _, m := range metricNames {
		var per [][]float64 // each run's log errors
		var all []float64
		for _, rows := range runs {
			if r := logErrors(rows, m); len(r) > 0 {
				per = append(per, r)
				all = append(all, r...)
			}
		}
		if len(all) < 2 {
			continue
		}
		bias := quantile(slices.Clone(all), 0.5)
		scores := make([][]float64, len(per))
		var flat []float64
		for j, r := range per {
			centre := bias // one run: no other run to centre on
			if len(per) > 1 {
				var others []float64
				for k, o := range per {
					if k != j {
						others = append(others, o...)
					}
				}
				centre = quantile(others, 0.5)
			}
			for _, x := range r {
				scores[j] = append(scores[j], math.Abs(x-centre))
			}
			flat = append(flat, scores[j]...)
		}
		units := effectiveUnits(scores)
		out[m] = sim.Spread{Bias: bias, H80: calibrated(slices.Clone(flat), 0.8, units), H95: calibrated(flat, 0.95, units)}
	}
	return out
}

// effectiveUnits is how many independent scores the grouped scores (one
// slice per run) are worth: Kish's n / (1 + (k̄ − 1)ρ), with k̄ the mean
// rows per run and ρ the intraclass correlation of the scores (one-way
// ANOVA estimator, clamped to [0, 1]). ρ = 1 — a run's rows move as one —
// gives the number of runs, ρ = 0 the number of rows; with no run of two
// rows or no spread between runs there is nothing to estimate ρ from, and
// it is taken as 1, the cautious end (fewer units, a higher quantile).
func effectiveUnits(groups [][]float64) float64 {
	n, g := 0, len(groups)
	var sum, sumK2 float64
	for _, x := range groups {
		n += len(x)
		sumK2 += float64(len(x) * len(x))
		for _, v := range x {
			sum += v
		}
	}
	if n == 0 {
		return 0
	}
	kbar := float64(n) / float64(g)
	rho := 1.0
	if g > 1 && n > g {
		mean := sum / float64(n)
		var ssb, ssw float64
		for _, x := range groups {
			var s float64
			for _, v := range x {
				s += v
			}
			mj := s / float64(len(x))
			ssb += float64(len(x)) * (mj - mean) * (mj - mean)
			for _, v := range x {
				ssw += (v - mj) * (v - mj)
			}
		}
		msb, msw := ssb/float64(g-1), ssw/float64(n-g)
		k0 := (float64(n) - sumK2/float64(n)) / float64(g-1)
		if d := msb + (k0-1)*msw; d > 0 {
			rho = min(1, max(0, (msb-msw)/d))
		}
	}
	return float64(n) / (1 + (kbar-1)*rho)
}

// calibrated is the value at position n·p·(units+1)/units of the n
// scores sorted ascending (1-based, linearly interpolated between
// neighbours, clamped to the smallest and the largest); units ≤ 0 counts
// each score as one. Why this position: the k-th smallest of n
// exchangeable scores bounds a new one with probability exactly
// k/(n+1), so k = p·(n+1) makes the expected coverage p (the Weibull
// plotting position, a type-6 quantile). Rounding k up instead — split
// conformal — guarantees at least p but up to p + 1/(units+1): 7.7 points
// with 12 runs, too wide for "calibrated, not wide". With units
// independent units behind the n scores (effectiveUnits), the correction
// is (units+1)/units at the same level: rows that move together earn the
// correction of fewer units. p past what the scores can show (95% of 12
// runs) gives the largest: a stated interval never extrapolates the tail.
func calibrated(scores []float64, p float64, units float64) float64 {
	n := len(scores)
	if units <= 0 {
		units = float64(n)
	}
	sort.Float64s(scores)
	pos := float64(n) * p * (units + 1) / units
	switch {
	case pos <= 1:
		return scores[0]
	case pos >= float64(n):
		return scores[n-1]
	}
	i := int(pos) // 1 ≤ i < n: between the i-th and the (i+1)-th
	return scores[i-1] + (pos-float64(i))*(scores[i]-scores[i-1])
}

func logErrors(rows []Row, m string) []float64 {
	var r []float64
	for _, row := range rows {
		real, ok1 := row.Real[m]
		s, ok2 := row.Sim[m]
		if ok1 && ok2 && real > 0 && s > 0 {
			r = append(r, math.Log(s/real))
		}
	}
	return r
}

// quantile is the q-quantile of xs, linearly interpolated (xs is sorted
// in place).
func quantile(xs []float64, q float64) float64 {
	sort.Float64s(xs)
	p := q * float64(len(xs)-1)
	i := int(math.Floor(p))
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (p-float64(i))*(xs[i+1]-xs[i])
}

// AddIntervals puts each stage row's stated intervals (u of its run, nil
// for a failed run) in the report and measures their coverage, stated and
// nested.
func (rep *Report) AddIntervals(u []*sim.Uncertainty) {
	stated := newTally()
	nested := newTally()
	for i := range rep.Runs {
		rr := &rep.Runs[i]
		if rr.Error != "" || u[i] == nil {
			continue
		}
		own := sim.Uncertainty{Spreads: Spreads(rep.stageRowsExcept(i)), Extrapolations: u[i].Extrapolations}
		for k := range rr.Stages {
			row := &rr.Stages[k]
			row.Interval = map[string]sim.Interval{}
			for m, v := range row.Sim {
				iv, ok := u[i].Interval(m, v)
				if !ok {
					continue
				}
				row.Interval[m] = iv
				if real, ok := row.Real[m]; ok {
					stated.add(m, real, iv)
					if niv, ok := own.Interval(m, v); ok {
						nested.add(m, real, niv)
					}
				}
			}
		}
	}
	rep.Coverage = &Coverage{Rows: stated.n, Stated80: stated.pct(stated.in80), Stated95: stated.pct(stated.in95),
		Nested80: nested.pct(nested.in80), Nested95: nested.pct(nested.in95),
		NestedH80: medians(nested.h80), NestedH95: medians(nested.h95)}
}

// stageRowsExcept are the stage rows of every run but skip's (-1: all),
// one slice per run with any.
func (rep *Report) stageRowsExcept(skip int) [][]Row {
	var runs [][]Row
	for j, rr := range rep.Runs {
		if j != skip && len(rr.Stages) > 0 {
			runs = append(runs, rr.Stages)
		}
	}
	return runs
}

// tally counts, per metric, the rows and those inside each interval, and
// keeps each interval's log half-width.
type tally struct {
	n, in80, in95 map[string]int
	h80, h95      map[string][]float64
}

func newTally() tally {
	return tally{map[string]int{}, map[string]int{}, map[string]int{}, map[string][]float64{}, map[string][]float64{}}
}

func (t tally) add(m string, real float64, iv sim.Interval) {
	t.n[m]++
	t.h80[m] = append(t.h80[m], math.Log(iv.Hi80/iv.Lo80)/2)
	t.h95[m] = append(t.h95[m], math.Log(iv.Hi95/iv.Lo95)/2)
	if real >= iv.Lo80 && real <= iv.Hi80 {
		t.in80[m]++
	}
	if real >= iv.Lo95 && real <= iv.Hi95 {
		t.in95[m]++
	}
}

func (t tally) pct(in map[string]int) map[string]float64 {
	out := map[string]float64{}
	for m, n := range t.n {
		out[m] = 100 * float64(in[m]) / float64(n)
	}
	return out
}

// medians are the median of each metric's values.
func medians(vs map[string][]float64) map[string]float64 {
	out := map[string]float64{}
	for m, v := range vs {
		out[m] = quantile(v, 0.5)
	}
	return out
}

// Uncertainties are the stated uncertainty of each run's config, nil for
// a run the simulator cannot resolve.
func (rp *Replayer) Uncertainties(runs []Run) []*sim.Uncertainty {
	out := make([]*sim.Uncertainty, len(runs))
	for i, r := range runs {
		cs, err := cardsFor(rp.Cards, r, rp.TokensPerChunk)
		if err != nil {
			continue
		}
		if u, err := (&sim.Simulator{Cards: cs}).Uncertainty(r.Config(), r.Target()); err == nil {
			out[i] = &u
		}
	}
	return out
}
