package lab

import (
	"context"
	"math"
	"slices"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// The confirmation goal of issue 21: the config a study reports is within
// noise of the best config it measured. Noise makes the best *measured*
// trial a lucky one; confirmation (studies/confirm.go) measures the top
// candidates again so the report ranks them by their means. The lab knows
// every config's true value, so it can check the claim: the reported
// config's true value against the truly best config among those the study
// measured, with the tolerance the report itself states (the half-width of
// its 95% interval, Recommendation.UncertaintyPct). The same interval
// about the value the report gives the config should hold its true value:
// Covered checks that claim too.

// ConfirmCheck is one study's confirmation, as the lab scores it.
type ConfirmCheck struct {
	// Reported is the true value of the config the study's report names
	// (measured Measurements times); BestMeasured the best true value of
	// any config it measured to the end.
	Reported     float64 `json:"reported"`
	BestMeasured float64 `json:"best_measured"`
	Measurements int     `json:"measurements"`
	// NoiseCV is the study's noise (measured from its repeats when
	// NoiseMeasured, else the default it assumes).
	NoiseCV       float64 `json:"noise_cv"`
	NoiseMeasured bool    `json:"noise_measured"`
	// Gap is how far the reported config truly is below the best measured
	// (relative, ≥ 0); Tolerance the report's stated uncertainty
	// (relative); Within whether Gap ≤ Tolerance.
	Gap       float64 `json:"gap"`
	Tolerance float64 `json:"tolerance"`
	Within    bool    `json:"within"`
	// Value is what the report says the config measures; Covered whether
	// its stated interval, Value ± Tolerance·Value, holds Reported.
	Value   float64 `json:"value"`
	Covered bool    `json:"covered"`
}

// reportedOf is what a report says of the config it names: its value
// and its stated uncertainty (relative), from n measurements.
type reportedOf struct {
	value, tolerance float64
	n                int
}

// checkConfirm judges the report's claims about the config it names,
// whose true value is truth, against the best true value it measured.
func checkConfirm(truth, bestMeasured float64, rep reportedOf, cv float64, measured, minimize bool) ConfirmCheck {
	c := ConfirmCheck{Reported: truth, BestMeasured: bestMeasured, Measurements: rep.n, NoiseCV: cv, NoiseMeasured: measured,
		Tolerance: rep.tolerance, Value: rep.value}
	c.Gap = max(0, gap(truth, bestMeasured, minimize))
	c.Within = c.Gap <= c.Tolerance+1e-12
	c.Covered = math.Abs(truth-rep.value) <= c.Tolerance*math.Abs(rep.value)+1e-12
	return c
}

// confirmOf is the confirmation check of a finished study (nil when its
// report names no config).
func confirmOf(ctx context.Context, o *Oracle, sp *space.Space, trials []store.Trial) *ConfirmCheck {
	rep := studies.BuildReport(sp, trials, nil)
	if len(rep.Recommendations) == 0 {
		return nil
	}
	rec := rep.Recommendations[0]
	obj := sp.Objectives[0]
	best := math.NaN()
	for _, t := range trials {
		if t.State != store.Complete {
			continue
		}
		if v := trueValue(ctx, o, t.Config, obj); !math.IsNaN(v) && (math.IsNaN(best) || obj.Better(v, best)) {
			best = v
		}
	}
	v := trueValue(ctx, o, rec.Config, obj)
	if math.IsNaN(v) || math.IsNaN(best) {
		return nil
	}
	said := reportedOf{value: math.NaN(), tolerance: rec.UncertaintyPct / 100, n: rec.Measurements}
	for _, w := range rep.Winners {
		if w.Trial == rec.Trial {
			said.value = w.Values[0]
		}
	}
	c := checkConfirm(v, best, said, rep.NoiseCV, rep.NoiseMeasured, obj.Direction == space.Minimize)
	return &c
}

// reporter is the config a study would report after each trial: the
// report's one-objective pick (search.PickBest: each config's mean pooled
// with its near-twins' at the noise its repeats measure, as
// studies.BuildReport ranks; constraints aside).
type reporter struct {
	obj   space.Objective
	vals  map[string][]float64
	cfg   map[string]space.Config
	order []string
}

func newReporter(obj space.Objective) *reporter {
	return &reporter{obj: obj, vals: map[string][]float64{}, cfg: map[string]space.Config{}}
}

// add records one complete measurement.
func (r *reporter) add(c space.Config, v float64) {
	if math.IsNaN(v) {
		return
	}
	k := c.Key()
	if len(r.vals[k]) == 0 {
		r.order = append(r.order, k)
		r.cfg[k] = c
	}
	r.vals[k] = append(r.vals[k], v)
}

// best is the report's pick, the first measured of the best on a tie
// (nil before any).
func (r *reporter) best() space.Config {
	arms := make([]search.Arm, len(r.order))
	disputed := studies.DisputedConfigs(r.vals)
	for i, k := range r.order {
		arms[i] = search.Arm{Config: r.cfg[k], Mean: search.Central(r.vals[k], disputed[k]), N: len(r.vals[k])}
	}
	// Ranked best first (stable), as the report ranks its candidates.
	slices.SortStableFunc(arms, func(a, b search.Arm) int {
		switch {
		case r.obj.Better(a.Mean, b.Mean):
			return -1
		case r.obj.Better(b.Mean, a.Mean):
			return 1
		}
		return 0
	})
	if b := search.PickBest(arms, r.noiseCV(), r.obj.Direction == space.Minimize); b >= 0 {
		return arms[b].Config
	}
	return nil
}

// noiseCV is the noise the report states for what was measured so far.
func (r *reporter) noiseCV() float64 {
	cv, _ := studies.PooledCV(r.vals)
	return cv
}
