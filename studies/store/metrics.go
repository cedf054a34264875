package store

import (
	"math"

	"github.com/servetune/servetune/search"
)

// DefinedMetrics drops undefined values (NaN, ±Inf): a metric that could
// not be computed is absent from the record, never stored as NaN, so
// every renderer and the JSON contract see only numbers.
func DefinedMetrics(m map[string]map[string]float64) map[string]map[string]float64 {
	for profile, vals := range m {
		for k, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				delete(vals, k)
			}
		}
		if len(vals) == 0 {
			delete(m, profile)
		}
	}
	return m
}

// DefinedIntervals drops, in place, every interval with a bound that is
// not finite, and the profiles left with none: an interval is absent,
// never NaN. It returns the map (nil when nothing is left).
func DefinedIntervals(m map[string]map[string]Interval) map[string]map[string]Interval {
	for profile, ivs := range m {
		for k, iv := range ivs {
			for _, x := range []float64{iv.Lo80, iv.Hi80, iv.Lo95, iv.Hi95} {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					delete(ivs, k)
					break
				}
			}
		}
		if len(ivs) == 0 {
			delete(m, profile)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// StoredCheckpoint is search.Checkpoint as stored: a value that is
// undefined at a checkpoint (an objective of another profile, a TPOT
// before any request produced two tokens) is null, since JSON has no NaN.
type StoredCheckpoint struct {
	Profile   string     `json:"profile"`
	Step      int        `json:"step"`
	Values    []*float64 `json:"values"`
	Violation float64    `json:"violation"`
	Projected []*float64 `json:"projected,omitempty"`
}

func ToStored(cs []search.Checkpoint) []StoredCheckpoint {
	out := make([]StoredCheckpoint, len(cs))
	for i, c := range cs {
		out[i] = StoredCheckpoint{Profile: c.Profile, Step: c.Step, Values: nullable(c.Values), Violation: finite(c.Violation), Projected: nullable(c.Projected)}
	}
	return out
}

func fromStored(cs []StoredCheckpoint) []search.Checkpoint {
	out := make([]search.Checkpoint, len(cs))
	for i, c := range cs {
		out[i] = search.Checkpoint{Profile: c.Profile, Step: c.Step, Values: nanable(c.Values), Violation: c.Violation, Projected: nanable(c.Projected)}
	}
	return out
}

func nullable(xs []float64) []*float64 {
	if xs == nil {
		return nil
	}
	out := make([]*float64, len(xs))
	for i, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out[i] = &xs[i]
		}
	}
	return out
}

func nanable(xs []*float64) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.NaN()
		if x != nil {
			out[i] = *x
		}
	}
	return out
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
