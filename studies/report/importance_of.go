package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/servetune/servetune/bench"
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
// measured it and ranks knobs by their share of the first objective. It
// also names what each objective's shares are of: the objective itself,
// or its per-GPU figure when the trials occupied different GPU counts
// (perGPUReading).
func importanceOf(objs []studies.ObjectiveInfo, pts []Point, ks []Knob) ([]Importance, []string) {
	of := perGPUReading(objs, pts)
	if len(ks) == 0 {
		return nil, of
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
			v := p.Values[o]
			if of[o] != objs[o].Metric {
				if p.GPUs < 1 {
					continue // no GPU count to divide by: no per-GPU value
				}
				v /= float64(p.GPUs)
			}
			row := make([]float64, len(ks))
			for j, k := range ks {
				row[j] = k.X(p.Config)
			}
			x, y = append(x, row), append(y, v)
		}
		sh := fanova.Importance(x, cat, y, uint64(o))
		for j := range sh {
			out[j].Share[o], found = sh[j], true
		}
	}
	if !found {
		return nil, of
	}
	tg := together(pts, ks)
	for j := range out {
		out[j].Together = tg[out[j].Knob]
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Share[0] > out[b].Share[0] })
	return out, of
}

// perGPUReading is what each objective's importance is read on. Where
// the complete trials occupied different GPU counts, a throughput is read
// per GPU (total_tps_per_gpu): on the total, the knobs that set the GPU
// count (tp, dp, a baseline on 2 GPUs against trials on 8) take the share
// of the GPUs they add, and the report's headline, which compares per GPU
// then, would disagree with its own importance (issue 50). Latencies and
// the rest are read as they are.
func perGPUReading(objs []studies.ObjectiveInfo, pts []Point) []string {
	out := make([]string, len(objs))
	counts := map[int]bool{}
	for _, p := range pts {
		if p.State == store.Complete && p.GPUs > 0 {
			counts[p.GPUs] = true
		}
	}
	for o, obj := range objs {
		out[o] = obj.Metric
		if _, ok := bench.PerGPUOf(obj.Metric + bench.PerGPUSuffix); ok && len(counts) > 1 {
			out[o] = obj.Metric + bench.PerGPUSuffix
		}
	}
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

// PerGPUNote says why the importance of a throughput is read per GPU,
// with the GPU counts the complete trials occupied; empty when no
// objective is.
func (f Full) PerGPUNote() string {
	lo, hi := 0, 0
	for _, p := range f.Points {
		if p.State != store.Complete || p.GPUs < 1 {
			continue
		}
		if lo == 0 || p.GPUs < lo {
			lo = p.GPUs
		}
		hi = max(hi, p.GPUs)
	}
	for o, m := range f.ImportanceOf {
		if o < len(f.Summary.Objectives) && m != f.Summary.Objectives[o].Metric {
			return fmt.Sprintf("The complete trials occupied %d to %d GPUs: throughput is read per GPU here, so a knob is credited with what it does for each GPU, not with the GPUs it adds.", lo, hi)
		}
	}
	return ""
}
