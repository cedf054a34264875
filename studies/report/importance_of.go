package report

import (
	"math"
	"sort"

	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/report/fanova"
	"github.com/servetune/servetune/studies/store"
)

// Importance is one knob's share of each objective's variance, as
// fANOVA over a random forest fitted to the complete trials says
// (package fanova).
type Importance struct {
	Knob  string
	Share []float64
	// Together are the knobs the trials only varied with this one: their
	// effects cannot be told apart, and the forest splits the share.
	Together []string
}

// importanceOf fits a forest to each objective on the trials that
// measured it and ranks knobs by their share of the first objective.
func importanceOf(objs []studies.ObjectiveInfo, pts []Point, ks []Knob) []Importance {
	if len(ks) == 0 {
		return nil
	}
	out := make([]Importance, len(ks))
	for j, k := range ks {
		out[j] = Importance{Knob: k.Name, Share: make([]float64, len(objs))}
	}
	cat := make([]bool, len(ks))
	for j, k := range ks {
		cat[j] = !k.Numeric
	}
	found := false
	for o := range objs {
		var x [][]float64
		var y []float64
		for _, p := range pts {
			if p.State != store.Complete || math.IsNaN(p.Values[o]) {
				continue
			}
			row := make([]float64, len(ks))
			for j, k := range ks {
				row[j] = k.X(p.Config)
			}
			x, y = append(x, row), append(y, p.Values[o])
		}
		sh := fanova.Importance(x, cat, y, uint64(o))
		for j := range sh {
			out[j].Share[o], found = sh[j], true
		}
	}
	if !found {
		return nil
	}
	tg := together(pts, ks)
	for j := range out {
		out[j].Together = tg[out[j].Knob]
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Share[0] > out[b].Share[0] })
	return out
}

// attributable splits the knobs into those the complete trials other
// than the baseline varied, which importance may credit, and those only
// the baseline's value varied (issue 50: a baseline on another engine
// and KV-cache type credited both with 20% from one trial): an effect
// seen on one trial cannot be told from the config's others.
func attributable(pts []Point, ks []Knob) (ok []Knob, baselineOnly []string) {
	for _, k := range ks {
		seen := map[float64]bool{}
		all := map[float64]bool{}
		for _, p := range pts {
			if p.State != store.Complete {
				continue
			}
			x := k.X(p.Config)
			all[x] = true
			if p.Origin != "baseline" {
				seen[x] = true
			}
		}
		switch {
		case len(seen) > 1:
			ok = append(ok, k)
		case len(all) > 1:
			baselineOnly = append(baselineOnly, k.Name)
		}
	}
	return ok, baselineOnly
}
