package optunadb

import (
	"encoding/json"
	"maps"
	"math"
	"slices"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// dist is one knob's Optuna distribution. Optuna keeps one distribution
// per param name for the whole study, so it is the knob's declared domain
// widened to every value the study holds (a baseline may sit outside the
// searched range): each stored value then lies inside it.
type dist struct {
	kind      space.Kind
	low, high float64
	step      float64 // 0: continuous float (null in Optuna's JSON); ints use 1
	log       bool
	choices   []any
}

// distributions returns the distribution of every knob that appears in
// the space or in any trial's config.
func distributions(sp *space.Space, ts []store.Trial) map[string]*dist {
	out := map[string]*dist{}
	for _, p := range sp.Params {
		out[p.Name] = declared(p)
	}
	configs := append([]space.Config{sp.Baseline}, sp.Enqueue...)
	for _, t := range ts {
		configs = append(configs, t.Config)
	}
	for _, c := range configs {
		for _, k := range slices.Sorted(maps.Keys(c)) {
			if out[k] == nil {
				out[k] = firstSeen(c[k])
			}
			out[k].widen(c[k])
		}
	}
	return out
}

func declared(p space.Param) *dist {
	d := &dist{kind: p.Kind, low: p.Low, high: p.High, step: p.Step, log: p.Log}
	switch {
	case p.Kind == space.Categorical:
		d.choices = slices.Clone(p.Values)
	case p.Kind == space.Int:
		d.step = math.Max(p.Step, 1)
		if p.Log {
			d.step = 1 // Optuna's log IntDistribution has step 1
		}
	case p.Log:
		d.step = 0
	}
	return d
}

// firstSeen guesses the domain of a config key the space does not declare:
// a number is a float range, anything else a category.
func firstSeen(v any) *dist {
	if f, ok := space.Number(v, false); ok {
		if _, isInt := space.Normalize(v).(int64); isInt {
			return &dist{kind: space.Int, low: f, high: f, step: 1}
		}
		return &dist{kind: space.Float, low: f, high: f}
	}
	return &dist{kind: space.Categorical}
}

// widen makes v a member of d.
func (d *dist) widen(v any) {
	if d.kind == space.Categorical {
		if d.index(v) < 0 {
			d.choices = append(d.choices, space.Normalize(v))
		}
		return
	}
	f, ok := space.Number(v, true)
	if !ok {
		return
	}
	oldLow := d.low
	d.low, d.high = math.Min(d.low, f), math.Max(d.high, f)
	if d.log && d.low <= 0 {
		d.log = false
	}
	// A grid is kept only while the new low leaves every value on it.
	if d.step > 0 && (!onGrid(f-d.low, d.step) || !onGrid(oldLow-d.low, d.step)) {
		d.step = 0
		if d.kind == space.Int {
			d.step = 1
		}
	}
}

func onGrid(x, step float64) bool {
	k := x / step
	return math.Abs(k-math.Round(k)) < 1e-6
}

func (d *dist) index(v any) int {
	s := space.FormatValue(v)
	for i, c := range d.choices {
		if space.FormatValue(c) == s {
			return i
		}
	}
	return -1
}

// internal is Optuna's stored form of v: the choice's index for a
// category, the number otherwise. ok is false when v is not in d.
func (d *dist) internal(v any) (float64, bool) {
	if d.kind == space.Categorical {
		i := d.index(v)
		return float64(i), i >= 0
	}
	return space.Number(v, true)
}

// JSON is the distribution as optuna.distributions.distribution_to_json
// writes it.
func (d *dist) JSON() string {
	var v any
	switch d.kind {
	case space.Categorical:
		v = map[string]any{"name": "CategoricalDistribution", "attributes": map[string]any{"choices": jsonChoices(d.choices)}}
	case space.Int:
		v = map[string]any{"name": "IntDistribution", "attributes": map[string]any{"log": d.log, "step": int64(d.step), "low": int64(d.low), "high": int64(d.high)}}
	default:
		var step any
		if d.step > 0 {
			step = d.step
		}
		v = map[string]any{"name": "FloatDistribution", "attributes": map[string]any{"step": step, "low": d.low, "high": d.high, "log": d.log}}
	}
	b, _ := json.Marshal(v) // maps of numbers, strings and bools always encode
	return string(b)
}

// jsonChoices keeps choices Optuna can hold (None, bool, int, float, str)
// and writes anything else as its text.
func jsonChoices(cs []any) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		switch c := space.Normalize(c).(type) {
		case nil, bool, int64, float64, string:
			out[i] = c
		default:
			out[i] = space.FormatValue(c)
		}
	}
	return out
}
