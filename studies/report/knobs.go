package report

import (
	"math"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Knob is one knob of the space as the plots place it on an axis:
// numeric knobs by value, others by their level's index.
type Knob struct {
	Name    string
	Numeric bool
	Levels  []string
}

// X is where a value sits on the knob's axis (NaN when the trial has no
// value for the knob, e.g. a conditional knob that did not apply).
func (k Knob) X(c space.Config) float64 {
	v, ok := c[k.Name]
	if !ok {
		return math.NaN()
	}
	if k.Numeric {
		f, _ := space.Number(v, false)
		return f
	}
	s := space.FormatValue(v)
	for i, l := range k.Levels {
		if l == s {
			return float64(i)
		}
	}
	return math.NaN()
}

// knobs lists the space's knobs with more than one value among the
// trials: a knob held fixed explains nothing.
func knobs(sp *space.Space, trials []store.Trial) []Knob {
	var out []Knob
	for _, p := range sp.Params {
		k := Knob{Name: p.Name, Numeric: p.Kind != space.Categorical}
		for _, v := range p.Values {
			k.Levels = appendNew(k.Levels, space.FormatValue(v))
		}
		distinct := map[string]bool{}
		for _, t := range trials {
			v, ok := t.Config[p.Name]
			if !ok {
				continue
			}
			distinct[space.FormatValue(v)] = true
			if _, num := space.Number(v, false); !num {
				k.Numeric = false
			}
			k.Levels = appendNew(k.Levels, space.FormatValue(v))
		}
		if len(distinct) > 1 {
			out = append(out, k)
		}
	}
	return out
}

func appendNew(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}
