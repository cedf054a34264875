package search

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/servetune/servetune/space"
)

// screenedPrior screens coarsely — it cannot tell a+b = 7 from 8 — and
// predicts exactly; it counts its full predictions.
type screenedPrior struct{ full atomic.Int64 }

func (p *screenedPrior) Predict(_ context.Context, c space.Config) ([]float64, bool) {
	p.full.Add(1)
	return []float64{truth(c)}, truth(c) <= 8
}

func (p *screenedPrior) Screen(_ context.Context, c space.Config) ([]float64, bool) {
	y := truth(c)
	if y >= 7 {
		y = 7
	}
	return []float64{y}, truth(c) <= 8
}

// Screening finds the region, the full prediction the best of it: the
// first proposal is the exact optimum although screening ties it with
// worse configs, and far fewer configs than the space are fully
// predicted.
func TestScreenerRefinesOnlyTheTop(t *testing.T) {
	sp := priorSpace()
	p := &screenedPrior{}
	s := newPriorSampler(t, sp, p)
	c, err := askOne(s)
	if err != nil {
		t.Fatal(err)
	}
	if truth(c) != 8 {
		t.Errorf("first proposal %s (y=%v), want y=8", c.Summary(), truth(c))
	}
	// a+b ≥ 7 and feasible: 11 configs tie on screening.
	if n := p.full.Load(); n > 16 || n < 11 {
		t.Errorf("%d full predictions, want the 11 tied at the top of the screening (≤ refineTop)", n)
	}
}

// With two objectives the prior proposes the config that adds the most
// predicted hypervolume to the measured front, not the best of either
// objective alone.
func TestPickHVFillsTheFrontsGap(t *testing.T) {
	sp := &space.Space{Objectives: []space.Objective{maxObj("tps"), minObj("tpot")},
		Params: []space.Param{{Name: "a", Kind: space.Int, Low: 1, High: 9}}}
	ps := &priorSampler{sp: sp, cands: map[string]*candidate{}, told: map[string]bool{}, resid: newResidual(2), twins: map[string]bool{}}
	add := func(a int64, tps, tpot float64, told bool) {
		c := space.Config{"a": a}
		k := ConfigKey(sp, c)
		ps.cands[k] = &candidate{cfg: c, values: []float64{tps, tpot}, feasible: true, refined: true}
		ps.order = append(ps.order, k)
		ps.told[k] = told
		if told {
			ps.measured = append(ps.measured, []float64{tps, tpot})
		}
	}
	add(1, 100, 10, true) // the measured front's two ends
	add(2, 10, 1, true)
	add(3, 101, 10, false) // best throughput, adds a sliver
	add(4, 9, 0.9, false)  // best TPOT, adds a sliver
	add(5, 60, 4, false)   // the middle of the gap
	add(6, 50, 11, false)  // dominated
	c, ok := ps.pickHV(map[string]bool{})
	if !ok || c["a"] != int64(5) {
		t.Errorf("pickHV = %v (%v), want a=5, the gap's middle", c, ok)
	}
	if c, ok := ps.pickHV(map[string]bool{ConfigKey(sp, space.Config{"a": int64(5)}): true}); !ok || c["a"] == int64(6) {
		t.Errorf("with a=5 busy pickHV = %v (%v), want a config that adds volume, not the dominated one", c, ok)
	}
}
