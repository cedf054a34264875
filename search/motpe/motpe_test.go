package motpe

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// MOTPE must learn the front: with the true front's reference point, its
// median hypervolume after 40 trials beats random search's and its own
// random start-up's, and comes close to the true front's.
func TestMOSamplerBeatsRandomOnATradeOff(t *testing.T) {
	sp, f := searchtest.MOLandscape()
	var all [][]float64
	for _, c := range search.Grid(sp) {
		all = append(all, f(c))
	}
	front := searchtest.FrontValues(all, sp.Objectives)
	ref := search.ReferencePoint(front, sp.Objectives)
	trueHV := search.Hypervolume(front, sp.Objectives, ref)

	const seeds, trials = 11, 40
	var mo, startup, random []float64
	for seed := int64(1); seed <= seeds; seed++ {
		m := NewMOSampler(sp, seed)
		pts := searchtest.RunMO(sp, f, m.Propose, m.Tell, trials)
		mo = append(mo, search.Hypervolume(pts, sp.Objectives, ref)/trueHV)
		startup = append(startup, search.Hypervolume(pts[:m.Startup], sp.Objectives, ref)/trueHV)

		rng := rand.New(rand.NewSource(seed))
		rpts := searchtest.RunMO(sp, f, func() space.Config { return sp.Sample(rng) }, func(search.Observation) {}, trials)
		random = append(random, search.Hypervolume(rpts, sp.Objectives, ref)/trueHV)
	}
	t.Logf("hypervolume / true front's at %d trials, median of %d seeds: MOTPE %.3f, random %.3f, MOTPE start-up (10) %.3f",
		trials, seeds, searchtest.Median(mo), searchtest.Median(random), searchtest.Median(startup))
	if searchtest.Median(mo) <= searchtest.Median(startup) {
		t.Errorf("MOTPE median hypervolume ratio %.3f did not improve on its random start-up's %.3f", searchtest.Median(mo), searchtest.Median(startup))
	}
	if searchtest.Median(mo) <= searchtest.Median(random) {
		t.Errorf("MOTPE median hypervolume ratio %.3f does not beat random search's %.3f", searchtest.Median(mo), searchtest.Median(random))
	}
	if searchtest.Median(mo) < 0.89 {
		t.Errorf("MOTPE median hypervolume ratio %.3f < 0.89 of the true front", searchtest.Median(mo))
	}
}

// Proposals respect `when` (steps only under EAGLE) and rules, are the same
// for the same seed, and the model copes with a history where most trials
// failed or broke an SLO.
func TestMOSamplerRespectsConditionsRulesAndSeed(t *testing.T) {
	sp, f := searchtest.MOLandscape()
	rule, _ := space.ParseExpr(`not (spec == "EAGLE" and max_running > 128)`)
	sp.Rules = []space.Rule{{Expr: rule, Message: "EAGLE needs small batches"}}
	run := func(seed int64) []string {
		m := NewMOSampler(sp, seed)
		var keys []string
		for i := 0; i < 30; i++ {
			c := m.Propose()
			keys = append(keys, c.Key())
			if _, has := c["steps"]; has != (c.String("spec") == "EAGLE") {
				t.Fatalf("proposal %d %v ignores the when condition", i, c)
			}
			if r := sp.Check(c); r != nil {
				t.Fatalf("proposal %d %v breaks the rule %q", i, c, r.Message)
			}
			v := f(c)
			o := search.Observation{Config: c, State: search.Complete, Value: v[0], Values: v}
			switch i % 3 {
			case 0:
				o = search.Observation{Config: c, State: search.Infeasible, Class: "oom", Value: math.NaN()}
			case 1:
				o.Violation = v[1] / 100 // an SLO on tpot most configs miss
			}
			m.Tell(o)
		}
		return keys
	}
	a, b, c := run(3), run(3), run(4)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("same seed, different proposals")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("different seeds, same proposals")
	}
}

// Infeasible trials join g and never l: with every measured config out of
// memory above mem_fraction 0.8, the model proposes below it.
func TestMOSamplerMovesAwayFromInfeasibleRegion(t *testing.T) {
	sp, f := searchtest.MOLandscape()
	m := NewMOSampler(sp, 9)
	high := 0
	for i := 0; i < 40; i++ {
		c := m.Propose()
		mem, _ := c.Float("mem_fraction")
		if mem > 0.8 {
			if i >= 20 {
				high++
			}
			m.Tell(search.Observation{Config: c, State: search.Infeasible, Class: "oom", Value: math.NaN()})
			continue
		}
		v := f(c)
		m.Tell(search.Observation{Config: c, State: search.Complete, Value: v[0], Values: v})
	}
	t.Logf("%d of the last 20 proposals above mem_fraction 0.8", high)
	// A random draw is above 0.8 with probability 3/6.
	if high > 5 {
		t.Errorf("%d of the last 20 proposals are in the region that always ran out of memory", high)
	}
}
