package studies

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// Values returns a trial's objective values (NaN where missing).
func Values(sp *space.Space, t Trial) []float64 {
	out := make([]float64, len(sp.Objectives))
	for i, o := range sp.Objectives {
		out[i] = metric(t, sp.ObjectiveProfile(o.Profile), o.Metric)
	}
	return out
}

// Violation sums the trial's relative SLO violations (0 = all met).
func Violation(sp *space.Space, t Trial) float64 {
	v := 0.0
	for _, c := range sp.Constraints {
		x := metric(t, sp.ObjectiveProfile(c.Profile), c.Metric)
		if math.IsNaN(x) {
			v += 1
			continue
		}
		v += c.Violation(x)
	}
	return v
}

func metric(t Trial, profile, name string) float64 {
	if m, ok := t.Metrics[profile]; ok {
		if v, ok := m[name]; ok {
			return v
		}
	}
	return math.NaN()
}

// points returns the ranking view of the complete trials and their indices.
func points(sp *space.Space, ts []Trial) ([]search.Point, []int) {
	var pts []search.Point
	var idx []int
	for i, t := range ts {
		if t.State != Complete {
			continue
		}
		pts = append(pts, search.Point{Values: Values(sp, t), Violation: Violation(sp, t)})
		idx = append(idx, i)
	}
	return pts, idx
}
