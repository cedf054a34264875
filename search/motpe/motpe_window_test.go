package motpe

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/internal/cputime"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// endlessLandscape is moLandscape with a continuous mem_fraction: more
// configs than any study measures.
func endlessLandscape() (*space.Space, func(space.Config) []float64) {
	sp, f := searchtest.MOLandscape()
	sp.Params[2].Step = 0
	return sp, f
}

// tellRandom tells m n seeded random configs measured on f.
func tellRandom(m *MOSampler, sp *space.Space, f func(space.Config) []float64, n int) {
	rng := rand.New(rand.NewSource(7))
	for range n {
		c := sp.Sample(rng)
		v := f(c)
		m.Tell(search.Observation{Config: c, State: search.Complete, Value: v[0], Values: v})
	}
}

// Past maxModelObs a proposal fits a bounded window that still holds
// every point of the Pareto front of all the observations, and the most
// recent ones; below it, every observation.
func TestMOSamplerWindowKeepsTheFront(t *testing.T) {
	sp, f := endlessLandscape()
	m := NewMOSampler(sp, 1)
	tellRandom(m, sp, f, maxModelObs)
	if got := len(m.modelObs()); got != maxModelObs {
		t.Fatalf("%d observations fitted of %d: want all", got, maxModelObs)
	}
	tellRandom(m, sp, f, 2*maxModelObs)
	win := m.modelObs()
	if len(win) > maxModelObs+len(m.front) || len(win) < maxModelObs/2 {
		t.Fatalf("window of %d observations (front %d), want about %d", len(win), len(m.front), maxModelObs)
	}
	in := map[string]bool{}
	for _, o := range win {
		in[fmt.Sprint(o.Values)] = true
	}
	pts := make([]search.Point, len(m.obs))
	for i, o := range m.obs {
		pts[i] = search.Point{Values: o.Values}
	}
	front := search.Front(pts, sp.Objectives)
	if len(front) != len(m.front) {
		t.Errorf("archive holds %d points, the front of all observations %d", len(m.front), len(front))
	}
	for _, i := range front {
		if !in[fmt.Sprint(m.obs[i].Values)] {
			t.Errorf("front point %v (observation %d) left out of the window", m.obs[i].Values, i)
		}
	}
	if last := m.obs[len(m.obs)-1]; !in[fmt.Sprint(last.Values)] {
		t.Error("the latest observation is left out of the window")
	}
}

// On a trade-off whose front grows with the study, the window still
// holds at most maxModelObs observations, among them both ends of the
// front (the best observation on each objective) and the latest one.
func TestMOSamplerWindowBoundedOnALargeFront(t *testing.T) {
	sp, f := tradeOffLandscape()
	m := NewMOSampler(sp, 1)
	tellRandom(m, sp, f, 5*maxModelObs)
	if len(m.front) <= maxModelObs/2 {
		t.Fatalf("front of %d: the history does not outgrow the window's share of it", len(m.front))
	}
	win := m.modelObs()
	if len(win) > maxModelObs {
		t.Errorf("window of %d observations (front %d), want at most %d", len(win), len(m.front), maxModelObs)
	}
	in := map[string]bool{}
	for _, o := range win {
		in[fmt.Sprint(o.Values)] = true
	}
	for k, obj := range sp.Objectives {
		best := m.obs[0].Values
		for _, o := range m.obs {
			if obj.Better(o.Values[k], best[k]) {
				best = o.Values
			}
		}
		if !in[fmt.Sprint(best)] {
			t.Errorf("the best observation on %s, %v, is left out of the window", obj.Metric, best)
		}
	}
	if last := m.obs[len(m.obs)-1]; !in[fmt.Sprint(last.Values)] {
		t.Error("the latest observation is left out of the window")
	}
}

// Past maxContribCandidates the split chooses its good set from the front
// thinned along its length; the good set must cover the front about as
// well as a choice among every member: its hypervolume within 1% of it.
func TestMOSamplerThinnedGoodSetKeepsTheHypervolume(t *testing.T) {
	sp, f := tradeOffLandscape()
	m := NewMOSampler(sp, 1)
	tellRandom(m, sp, f, maxModelObs)
	front, _ := nonDominated(m.obs, sp.Objectives)
	if len(front) <= maxContribCandidates {
		t.Fatalf("front of %d: not thinned", len(front))
	}
	values := func(obs []search.Observation) [][]float64 {
		var out [][]float64
		for _, o := range obs {
			out = append(out, o.Values)
		}
		return out
	}
	ref := search.ReferencePoint(values(front), sp.Objectives)
	full, _ := selectByContribution(front, sp.Objectives, moGamma(len(m.obs)))
	s := m.split()
	got, want := search.Hypervolume(values(s.below), sp.Objectives, ref), search.Hypervolume(values(full), sp.Objectives, ref)
	if got < 0.99*want {
		t.Errorf("good set from the thinned front of %d: hypervolume %.6g, from all of it %.6g (%.4f)", len(front), got, want, got/want)
	}
}

// tradeOffLandscape is endlessLandscape measured on a smooth trade-off,
// as a long simulated study of two objectives finds it (big.toml in
// docs/benchmarks.md): throughput and latency both rise with
// mem_fraction, so among the configs of one engine and chunk every one is
// on the front; the other engine is a little slower at the same latency
// and the other chunks a little worse on both. The front grows with n: 39
// of 100 random observations, 174 of 1,000, about 1,600 of 10,000.
func tradeOffLandscape() (*space.Space, func(space.Config) []float64) {
	sp, _ := endlessLandscape()
	return sp, func(c space.Config) []float64 {
		mem, _ := c.Float("mem_fraction")
		t := (mem - 0.7) / 0.25
		tps, tpot := 1000*(1+t), 10*(1+t*t)
		if c.Engine() == "vllm" {
			tps *= 0.97
		}
		if c.String("chunk") != "default" {
			tps, tpot = tps*0.99, tpot*1.01
		}
		return []float64{tps, tpot}
	}
}

// BenchmarkMOTPEAsk is one MOTPE proposal (multivariate, the default)
// after n observations of a 2-objective landscape: "random", the
// synthetic trade-off of MOLandscape with a continuous knob (its front of
// 10,000 random observations has about 440 points), and "tradeoff", whose
// front holds a sixth of the observations (tradeOffLandscape: about 1,600
// of 10,000), the case where the Pareto archive outgrows the window.
// cpu-ms/op is the process's CPU time per proposal: on a shared machine
// the wall time ns/op also counts the other processes' turns.
//
//	go test ./search/motpe -run '^$' -bench MOTPEAsk
func BenchmarkMOTPEAsk(b *testing.B) {
	lands := []struct {
		name string
		land func() (*space.Space, func(space.Config) []float64)
	}{{"random", endlessLandscape}, {"tradeoff", tradeOffLandscape}}
	for _, l := range lands {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/n=%d", l.name, n), func(b *testing.B) {
				sp, f := l.land()
				m := NewMOSampler(sp, 1)
				tellRandom(m, sp, f, n)
				b.ResetTimer()
				cpu := cputime.Process()
				for range b.N {
					m.Propose()
				}
				cputime.Report(b, cpu)
				b.ReportMetric(float64(len(m.front)), "front")
			})
		}
	}
}
