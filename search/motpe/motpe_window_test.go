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

// BenchmarkMOTPEAsk is one MOTPE proposal (multivariate, the default)
// after n observations of the synthetic trade-off (a continuous knob: its
// front of 10,000 random observations has about 440 points). cpu-ms/op is
// the process's CPU time per proposal: on a shared machine the wall time
// ns/op also counts the other processes' turns.
//
//	go test ./search -run '^$' -bench MOTPEAsk
func BenchmarkMOTPEAsk(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sp, f := endlessLandscape()
			m := NewMOSampler(sp, 1)
			tellRandom(m, sp, f, n)
			b.ResetTimer()
			cpu := cputime.Process()
			for range b.N {
				m.Propose()
			}
			cputime.Report(b, cpu)
		})
	}
}
