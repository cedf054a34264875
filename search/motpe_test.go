package search

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/servetune/servetune/space"
)

// moLandscape is a synthetic serving trade-off: concurrency (bounded by
// the KV memory that mem_fraction buys) raises throughput and per-token
// latency together, speculative decoding helps at low concurrency and
// hurts at high, and the engine and chunk size shift both objectives a
// little. Objectives: maximise total_tps, minimise mean_tpot_ms.
func moLandscape() (*space.Space, func(space.Config) []float64) {
	when, _ := space.ParseExpr(`spec == "EAGLE"`)
	sp := &space.Space{
		Study:      space.Study{Name: "mo"},
		Target:     space.Target{GPUs: 1},
		Objectives: []space.Objective{maxObj("total_tps"), minObj("mean_tpot_ms")},
		Params: []space.Param{
			{Name: "engine", Kind: space.Categorical, Values: []any{"vllm", "sglang"}},
			{Name: "max_running", Kind: space.Int, Low: 8, High: 256, Step: 8},
			{Name: "mem_fraction", Kind: space.Float, Low: 0.7, High: 0.95, Step: 0.05},
			{Name: "chunk", Kind: space.Categorical, Values: []any{"default", int64(2048), int64(8192)}},
			{Name: "spec", Kind: space.Categorical, Values: []any{"none", "EAGLE"}},
			{Name: "steps", Kind: space.Int, Low: 1, High: 5, When: when},
		},
	}
	f := func(c space.Config) []float64 {
		mr, _ := c.Float("max_running")
		mem, _ := c.Float("mem_fraction")
		conc := math.Min(mr, 40+400*(mem-0.7))
		tpot := 8 + 0.15*conc
		if c.String("spec") == "EAGLE" {
			s, _ := c.Float("steps")
			tpot *= (1 + 0.004*s*conc) / (1 + 0.35*math.Sqrt(s))
		}
		tpsF := 1.0
		if c.Engine() == "sglang" {
			tpsF, tpot = 1.1, tpot*1.04
		}
		switch c.String("chunk") {
		case "2048":
			tpsF, tpot = tpsF*0.97, tpot*0.95
		case "8192":
			tpsF, tpot = tpsF*1.03, tpot*1.05
		}
		return []float64{tpsF * conc * 1000 / tpot, tpot}
	}
	return sp, f
}

// runMO measures n proposals of a sampler and returns the objective values.
func runMO(sp *space.Space, f func(space.Config) []float64, propose func() space.Config, tell func(Observation), n int) [][]float64 {
	var pts [][]float64
	seen := map[string]bool{}
	for tries := 0; len(pts) < n; tries++ {
		c := propose()
		if seen[c.Key()] && tries < 100*n {
			continue // the Searcher asks again rather than measure a repeat
		}
		seen[c.Key()] = true
		v := f(c)
		pts = append(pts, v)
		tell(Observation{Config: c, State: Complete, Value: v[0], Values: v})
	}
	return pts
}

func frontValues(pts [][]float64, objs []space.Objective) [][]float64 {
	ps := make([]Point, len(pts))
	for i, v := range pts {
		ps[i] = Point{Values: v}
	}
	var out [][]float64
	for _, i := range Front(ps, objs) {
		out = append(out, pts[i])
	}
	return out
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// MOTPE must learn the front: with the true front's reference point, its
// median hypervolume after 40 trials beats random search's and its own
// random start-up's, and comes close to the true front's.
func TestMOSamplerBeatsRandomOnATradeOff(t *testing.T) {
	sp, f := moLandscape()
	var all [][]float64
	for _, c := range Grid(sp) {
		all = append(all, f(c))
	}
	front := frontValues(all, sp.Objectives)
	ref := ReferencePoint(front, sp.Objectives)
	trueHV := Hypervolume(front, sp.Objectives, ref)

	const seeds, trials = 11, 40
	var mo, startup, random []float64
	for seed := int64(1); seed <= seeds; seed++ {
		m := NewMOSampler(sp, seed)
		pts := runMO(sp, f, m.Propose, m.Tell, trials)
		mo = append(mo, Hypervolume(pts, sp.Objectives, ref)/trueHV)
		startup = append(startup, Hypervolume(pts[:m.Startup], sp.Objectives, ref)/trueHV)

		rng := rand.New(rand.NewSource(seed))
		rpts := runMO(sp, f, func() space.Config { return sp.Sample(rng) }, func(Observation) {}, trials)
		random = append(random, Hypervolume(rpts, sp.Objectives, ref)/trueHV)
	}
	t.Logf("hypervolume / true front's at %d trials, median of %d seeds: MOTPE %.3f, random %.3f, MOTPE start-up (10) %.3f",
		trials, seeds, median(mo), median(random), median(startup))
	if median(mo) <= median(startup) {
		t.Errorf("MOTPE median hypervolume ratio %.3f did not improve on its random start-up's %.3f", median(mo), median(startup))
	}
	if median(mo) <= median(random) {
		t.Errorf("MOTPE median hypervolume ratio %.3f does not beat random search's %.3f", median(mo), median(random))
	}
	if median(mo) < 0.89 {
		t.Errorf("MOTPE median hypervolume ratio %.3f < 0.89 of the true front", median(mo))
	}
}

// Proposals respect `when` (steps only under EAGLE) and rules, are the same
// for the same seed, and the model copes with a history where most trials
// failed or broke an SLO.
func TestMOSamplerRespectsConditionsRulesAndSeed(t *testing.T) {
	sp, f := moLandscape()
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
			o := Observation{Config: c, State: Complete, Value: v[0], Values: v}
			switch i % 3 {
			case 0:
				o = Observation{Config: c, State: Infeasible, Class: "oom", Value: math.NaN()}
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
	sp, f := moLandscape()
	m := NewMOSampler(sp, 9)
	high := 0
	for i := 0; i < 40; i++ {
		c := m.Propose()
		mem, _ := c.Float("mem_fraction")
		if mem > 0.8 {
			if i >= 20 {
				high++
			}
			m.Tell(Observation{Config: c, State: Infeasible, Class: "oom", Value: math.NaN()})
			continue
		}
		v := f(c)
		m.Tell(Observation{Config: c, State: Complete, Value: v[0], Values: v})
	}
	t.Logf("%d of the last 20 proposals above mem_fraction 0.8", high)
	// A random draw is above 0.8 with probability 3/6.
	if high > 5 {
		t.Errorf("%d of the last 20 proposals are in the region that always ran out of memory", high)
	}
}
