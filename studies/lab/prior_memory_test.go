package lab

import (
	"context"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// The lab's prior is asked about other machines as `servetune run`'s is,
// and on the card's own machine its memory plan agrees with the oracle:
// a config runs out of memory in one exactly when it does in the other.
func TestOraclePriorMemoryPlanAgreesWithTheOracle(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	o := NewOracle(sp)
	var p search.Prior = newOraclePrior(o, sp)
	mp, ok := p.(search.MemoryPlanner)
	if !ok {
		t.Fatal("the lab's prior is not a search.MemoryPlanner")
	}
	base := sp.WithTargetEngine(Expert("glm52"))
	oom, fit := 0, 0
	for _, f := range []float64{0.7, 0.8, 0.85, 0.9, 0.95} {
		c := space.Config{}
		for k, v := range base {
			c[k] = v
		}
		c["mem_fraction"] = f
		out := o.Eval(context.Background(), c)
		fail, isF := engines.AsFailure(out.err)
		wantOOM := isF && fail.Class == engines.OOM
		fits, memory := mp.MemoryFits(c, 1, 1)
		if !memory || fits == wantOOM {
			t.Errorf("mem_fraction %g: plan fits %v (memory matter %v), oracle out of memory %v", f, fits, memory, wantOOM)
		}
		if wantOOM {
			oom++
		} else {
			fit++
		}
	}
	if oom == 0 || fit == 0 {
		t.Errorf("%d of the expert's mem_fraction variants run out of memory, %d start: the check separates nothing", oom, fit)
	}
}
