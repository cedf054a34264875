package studies

import (
	"fmt"
	"math"
	"strings"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// A search can settle on a config a few % below the best whose better
// twin is one knob step away and was never measured (issue 46). The
// report cannot measure it, but it can say, for every winner, which of
// its one-knob neighbours (search.OneKnobNeighbours) the study measured,
// which the prior predicted worse, and which nobody looked at.

// Neighbour statuses.
const (
	// NeighbourMeasured: the study ran the config (Versus says how it
	// compares, or that it did not complete).
	NeighbourMeasured = "measured"
	// NeighbourPredicted: not run, but the prior's kept prediction covers
	// it (Versus is "worse" or "not worse", "better" when it is not worse
	// and better beyond the incumbent's interval).
	NeighbourPredicted = "predicted"
	// NeighbourUnexplored: neither run nor predicted.
	NeighbourUnexplored = "not explored"
)

// Versus values: how a neighbour compares with its incumbent.
const (
	VersusBetter      = "better"       // beyond the noise, on no objective worse beyond it
	VersusWorse       = "worse"        // beyond the noise (predicted: or not starting)
	VersusWithinNoise = "within noise" // no objective apart beyond the noise
	VersusTradeOff    = "trade-off"    // better on one objective, worse on another, beyond the noise
	VersusNotWorse    = "not worse"    // predicted: neither worse nor better beyond the incumbent's interval
	VersusBreaks      = "breaks a constraint"
	VersusIncomplete  = "did not complete"
)

// NeighbourRow is one config one knob step from a winner.
type NeighbourRow struct {
	Knob   string       `json:"knob"`
	Value  any          `json:"value"`
	Config space.Config `json:"config"`
	Status string       `json:"status"`
	// Versus compares it with the incumbent (absent when unexplored).
	Versus string `json:"versus,omitempty"`
	// Trial is its first trial and Measurements how many ran (measured);
	// Values are its central values per objective (complete ones).
	Trial        int       `json:"trial,omitempty"`
	Measurements int       `json:"measurements,omitempty"`
	Values       []float64 `json:"values,omitempty"`
	// State is the outcome of its last trial when none completed.
	State store.State `json:"state,omitempty"`
	// Predicted are the prior's kept predictions per objective, and
	// PredictedFeasible whether it predicted the config to start.
	Predicted         []float64 `json:"predicted,omitempty"`
	PredictedFeasible bool      `json:"predicted_feasible,omitempty"`
}

// measuredConfig is what the study holds of one config: its complete
// measurements' central values (N of them) or, when none completed, how
// many trials settled and the last one's state.
type measuredConfig struct {
	Trial    int
	N        int
	Values   []float64
	Violates bool
	Tried    int
	State    store.State
}

// noise is the report's stated noise, from which every interval is made.
type noise struct {
	CV float64
	DF int
}

// halfWidth is the relative 95% half-width of a mean of n measurements,
// as the report states it (Report.uncertaintyPct, without the %).
func (nz noise) halfWidth(n int) float64 {
	return search.HalfWidth(nz.CV, nz.DF, n, DefaultNoiseCV)
}

// fillNeighbourhoods gives each winner its one-knob neighbourhood, its
// summary and warnings. kept are the prior's predictions kept with the
// study, by search.ConfigKey (nil: none).
func (r *Report) fillNeighbourhoods(sp *space.Space, trials []store.Trial, gs groups, kept map[string]store.Prediction) {
	measured := measuredConfigs(sp, trials, gs)
	objs := make([]space.Objective, len(r.Objectives))
	for i, o := range r.Objectives {
		objs[i] = space.Objective{Metric: o.Metric, Direction: o.Direction}
	}
	nz := noise{CV: r.NoiseCV, DF: r.NoiseDF}
	for i := range r.Winners {
		w := &r.Winners[i]
		inc := measured[search.ConfigKey(sp, w.Config)]
		inc.Values = w.Values // the winner's central values, as the report states them
		incKept, hasKept := kept[search.ConfigKey(sp, w.Config)]
		var ref *store.Prediction
		if hasKept && incKept.Feasible {
			ref = &incKept
		}
		w.Neighbourhood = nil
		for _, n := range search.OneKnobNeighbours(sp, w.Config) {
			key := search.ConfigKey(sp, n.Config)
			p, predicted := kept[key]
			var pp *store.Prediction
			if predicted {
				pp = &p
			}
			m, ok := measured[key]
			var mp *measuredConfig
			if ok {
				mp = &m
			}
			w.Neighbourhood = append(w.Neighbourhood, neighbourRow(objs, nz, inc, ref, n, mp, pp))
		}
		w.NeighbourhoodSummary, w.NeighbourhoodWarnings = neighbourhoodSummary(w.Neighbourhood)
	}
}

// measuredConfigs indexes the study's settled trials by config
// (search.ConfigKey): complete ones through their group (its central
// values, as the winners' are made), the rest by count and last state.
func measuredConfigs(sp *space.Space, trials []store.Trial, gs groups) map[string]measuredConfig {
	out := map[string]measuredConfig{}
	for _, t := range trials {
		if t.State == store.Running || t.ReusedFrom != 0 {
			continue
		}
		key := search.ConfigKey(sp, t.Config)
		m, seen := out[key]
		if !seen {
			m.Trial = t.Number
			if g := gs.of(t.Config.Key()); g != nil {
				m.N, m.Values, m.Violates = len(g.runs), g.mean, g.violation > 0
			}
		}
		m.Tried++
		if t.State != store.Complete {
			m.State = t.State
		}
		out[key] = m
	}
	return out
}

// neighbourRow is neighbour n of the incumbent inc: measured when the
// study ran it (m), predicted when the prior's kept predictions hold it
// (p), else unexplored. A prediction is compared with the incumbent's own
// prediction (ref) when there is one, the simulator's bias then being
// the same on both sides, else with the incumbent's central values.
func neighbourRow(objs []space.Objective, nz noise, inc measuredConfig, ref *store.Prediction, n search.Neighbour, m *measuredConfig, p *store.Prediction) NeighbourRow {
	row := NeighbourRow{Knob: n.Knob, Value: n.Value, Config: n.Config, Status: NeighbourUnexplored}
	switch {
	case m != nil:
		row.Status, row.Trial = NeighbourMeasured, m.Trial
		switch {
		case m.N == 0:
			row.Measurements, row.State, row.Versus = m.Tried, m.State, VersusIncomplete
		case m.Violates:
			row.Measurements, row.Values, row.Versus = m.N, m.Values, VersusBreaks
		default:
			row.Measurements, row.Values = m.N, m.Values
			margin := math.Hypot(nz.halfWidth(m.N), nz.halfWidth(max(inc.N, 1)))
			row.Versus = compareMeasured(objs, m.Values, inc.Values, margin)
		}
	case p != nil:
		row.Status, row.Predicted, row.PredictedFeasible = NeighbourPredicted, p.Values, p.Feasible
		against := inc.Values
		if ref != nil {
			against = ref.Values
		}
		row.Versus = comparePredicted(objs, *p, against, nz.halfWidth(max(inc.N, 1)))
	}
	return row
}

// compareMeasured says how measured values a compare with the
// incumbent's b, a relative difference counting only beyond margin (the
// 95% interval of the difference of the two means).
func compareMeasured(objs []space.Objective, a, b []float64, margin float64) string {
	better, worse := apart(objs, a, b, margin)
	switch {
	case better && worse:
		return VersusTradeOff
	case better:
		return VersusBetter
	case worse:
		return VersusWorse
	}
	return VersusWithinNoise
}

// comparePredicted says whether prediction p is worse than against with
// confidence (not starting, or worse beyond margin on some objective and
// better beyond it on none), better (better beyond margin on some, worse
// on none: a twin to measure), or neither: not worse. A trade-off with
// several objectives is not worse, and no better twin of this config.
func comparePredicted(objs []space.Objective, p store.Prediction, against []float64, margin float64) string {
	if !p.Feasible {
		return VersusWorse
	}
	switch better, worse := apart(objs, p.Values, against, margin); {
	case worse && !better:
		return VersusWorse
	case better && !worse:
		return VersusBetter
	}
	return VersusNotWorse
}

// apart says whether a is better than b beyond margin (relative to b) on
// some objective, and worse beyond it on some; undefined values say
// nothing.
func apart(objs []space.Objective, a, b []float64, margin float64) (better, worse bool) {
	for j, o := range objs {
		if j >= len(a) || j >= len(b) || math.IsNaN(a[j]) || math.IsNaN(b[j]) || b[j] == 0 {
			continue
		}
		d := (a[j] - b[j]) / math.Abs(b[j])
		if o.Direction == space.Minimize {
			d = -d
		}
		switch {
		case d > margin:
			better = true
		case d < -margin:
			worse = true
		}
	}
	return better, worse
}

// neighbourhoodSummary is the one line a winner's neighbourhood comes to
// ("k of n one-knob neighbours measured; m predicted worse; u
// unexplored", and how many were predicted not worse) and a plain
// warning for each thing a user must know: a neighbour measured or
// predicted better, and neighbours nobody looked at. A neighbour
// predicted merely not worse (an equal twin, a trade-off) is counted, not
// warned of: nearly every config has one.
func neighbourhoodSummary(rows []NeighbourRow) (string, []string) {
	var measured, predWorse, unexplored int
	var better, predBetter, open []string
	notWorse := 0
	for _, r := range rows {
		name := search.KnobKey(r.Knob, r.Value)
		switch {
		case r.Status == NeighbourMeasured:
			measured++
			if r.Versus == VersusBetter {
				better = append(better, fmt.Sprintf("%s (trial %d)", name, r.Trial))
			}
		case r.Status == NeighbourPredicted && r.Versus == VersusWorse:
			predWorse++
		case r.Status == NeighbourPredicted:
			notWorse++
			if r.Versus == VersusBetter {
				predBetter = append(predBetter, name)
			}
		default:
			unexplored++
			open = append(open, name)
		}
	}
	sum := fmt.Sprintf("%d of %d one-knob neighbours measured; %d predicted worse; %d unexplored", measured, len(rows), predWorse, unexplored)
	if notWorse > 0 {
		sum += fmt.Sprintf("; %d predicted not worse", notWorse)
	}
	var warn []string
	if len(better) > 0 {
		warn = append(warn, fmt.Sprintf("measured better than this config beyond the noise, one knob away: %s", strings.Join(better, ", ")))
	}
	if len(predBetter) > 0 {
		warn = append(warn, fmt.Sprintf("predicted better than this config beyond its interval and never measured, one knob away: %s", strings.Join(predBetter, ", ")))
	}
	if len(open) > 0 {
		warn = append(warn, fmt.Sprintf("neither measured nor predicted, one knob away (a better config may be among them): %s", strings.Join(open, ", ")))
	}
	return sum, warn
}
