package studies

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Values returns a trial's objective values (NaN where missing).
func Values(sp *space.Space, t store.Trial) []float64 {
	out := make([]float64, len(sp.Objectives))
	for i, o := range sp.Objectives {
		out[i] = metric(t, sp.ObjectiveProfile(o.Profile), o.Metric)
	}
	return out
}

// Violation sums the trial's relative SLO violations (0 = all met).
// base is the study's finished baseline (Baseline): a guard relative to
// it is unknown, so not violated, until it has finished.
func Violation(sp *space.Space, t store.Trial, base *store.Trial) float64 {
	v := 0.0
	for _, c := range sp.Constraints {
		c, known := resolve(sp, c, base)
		if !known {
			continue
		}
		x := metric(t, sp.ObjectiveProfile(c.Profile), c.Metric)
		if math.IsNaN(x) {
			v += 1
			continue
		}
		v += c.Violation(x)
	}
	return v
}

// resolve makes a guard's bound absolute with the baseline's value of its
// metric on its profile; false when that value is not known.
func resolve(sp *space.Space, c space.Constraint, base *store.Trial) (space.Constraint, bool) {
	if !c.Relative {
		return c, true
	}
	if base == nil {
		return c, false
	}
	b := metric(*base, sp.ObjectiveProfile(c.Profile), c.Metric)
	return c.Against(b), !math.IsNaN(b)
}

// Baseline is the study's baseline trial once it has finished, or nil.
func Baseline(ts []store.Trial) *store.Trial {
	for i := range ts {
		if ts[i].Origin == "baseline" && ts[i].State == store.Complete {
			return &ts[i]
		}
	}
	return nil
}

func metric(t store.Trial, profile, name string) float64 {
	if m, ok := t.Metrics[profile]; ok {
		if v, ok := m[name]; ok {
			return v
		}
	}
	return math.NaN()
}

// points returns the ranking view of the complete trials and their indices.
func points(sp *space.Space, ts []store.Trial) ([]search.Point, []int) {
	var pts []search.Point
	var idx []int
	base := Baseline(ts)
	for i, t := range ts {
		if t.State != store.Complete {
			continue
		}
		pts = append(pts, search.Point{Values: Values(sp, t), Violation: Violation(sp, t, base)})
		idx = append(idx, i)
	}
	return pts, idx
}

// baselineReplies are the finished baseline's replies per quality
// profile, nil until it finished.
func baselineReplies(ts []store.Trial) map[string][]string {
	if b := Baseline(ts); b != nil {
		return b.Replies
	}
	return nil
}
