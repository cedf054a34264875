package studies

import (
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Measured is one config as the report ranks it: the complete trials
// that measured it (reuses excluded), oldest first, and its value over
// them — what an export must show so another tool ranks the study as
// servetune does (one point per config, not one per measurement).
type Measured struct {
	// Runs are indices into the trials; Runs[0] is the trial the report
	// names the config by.
	Runs []int
	// Values are each objective's central value (search.Central: the
	// mean, a disputed config's median), Violation the mean SLO
	// violation (0: every measurement met every SLO).
	Values    []float64
	Violation float64
	// Metrics are every profile's metrics at their central value (the
	// trial's own when measured once).
	Metrics map[string]map[string]float64
}

// MeasuredConfigs groups the complete measurements by config, in the
// order each config was first measured, exactly as BuildReport does.
func MeasuredConfigs(sp *space.Space, trials []store.Trial) []Measured {
	gs := configGroups(sp, trials)
	out := make([]Measured, len(gs))
	for i, g := range gs {
		first := trials[g.runs[0]]
		out[i] = Measured{Runs: g.runs, Values: g.mean, Violation: g.violation, Metrics: gs.meanTrial(trials, first).Metrics}
	}
	return out
}
