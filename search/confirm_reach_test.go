package search

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/servetune/servetune/space"
)

// randomRanking is n configs ranked best first on a first objective:
// most near the top (within noise of one another, ties included), a few
// far below, now and then a zero or negative mean.
func randomRanking(rng *rand.Rand, n int, minimize bool) []float64 {
	means := make([]float64, n)
	for i := range means {
		switch r := rng.Float64(); {
		case r < 0.05:
			means[i] = -rng.Float64() * 100
		case r < 0.08:
			means[i] = 0
		case r < 0.2 && i > 0:
			means[i] = means[rng.Intn(i)] // a tie
		default:
			means[i] = 1000 * math.Exp(-math.Abs(rng.NormFloat64())*[]float64{0.02, 0.08, 0.5}[rng.Intn(3)])
		}
	}
	slices.Sort(means)
	if !minimize {
		slices.Reverse(means)
	}
	return means
}

// Reading the ranking down to Reach decides what reading all of it does,
// on random rankings, leaders and noise: no rival past the cut is ever
// measured or counted.
func TestReachDecidesAsTheWholeRanking(t *testing.T) {
	rng := rand.New(rand.NewSource(49))
	cut := 0
	for c := range 20000 {
		minimize := rng.Intn(2) == 0
		means := randomRanking(rng, 1+rng.Intn(40), minimize)
		s := ConfirmState{Budget: rng.Intn(12), Used: rng.Intn(10), SparedUsed: rng.Intn(3), NTrials: 40 + rng.Intn(60),
			Minimize: minimize, CV: []float64{0, 1e-16, 0.01, 0.05, 0.2, 0.6}[rng.Intn(6)], CVDF: rng.Intn(6),
			AssumedCV: []float64{0, 0.05}[rng.Intn(2)]}
		s.Done = rng.Intn(s.NTrials + 1)
		s.Remaining = s.NTrials - s.Done
		for i, m := range means {
			s.Ranked = append(s.Ranked, Measured{Key: fmt.Sprint("c", i), Mean: m, N: 1 + rng.Intn(3),
				Running: rng.Intn(8) == 0, Spared: rng.Intn(4) == 0, Disputed: rng.Intn(6) == 0})
		}
		switch r := rng.Intn(4); {
		case r == 0:
			s.Leader = ""
		case r == 1:
			s.Leader = "absent"
		default:
			s.Leader = s.Ranked[rng.Intn(min(4, len(s.Ranked)))].Key
		}
		k := s.Reach(len(s.Ranked), func(i int) Measured { return s.Ranked[i] })
		if k < len(s.Ranked) {
			cut++
		}
		cutState := s
		cutState.Ranked = s.Ranked[:k]
		want, wantOK := NextConfirm(s)
		got, gotOK := NextConfirm(cutState)
		if got != want || gotOK != wantOK {
			t.Fatalf("case %d: %d of %d rows read: %v %v, the whole ranking %v %v\nstate %+v", c, k, len(s.Ranked), got, gotOK, want, wantOK, s)
		}
		if e, w := cutState.endTrials(), s.endTrials(); e != w {
			t.Fatalf("case %d: %d of %d rows read: endTrials %d, the whole ranking %d", c, k, len(s.Ranked), e, w)
		}
	}
	if cut < 1000 {
		t.Errorf("only %d of 20000 rankings were cut: the cut was not exercised", cut)
	}
}

// PickBest and PooledMeans read down to Contenders give what reading all
// the arms does, on random rankings of configs that share knob values.
func TestContendersPickAsAllTheArms(t *testing.T) {
	rng := rand.New(rand.NewSource(491))
	cut := 0
	for c := range 5000 {
		minimize := rng.Intn(2) == 0
		means := randomRanking(rng, 1+rng.Intn(40), minimize)
		arms := make([]Arm, len(means))
		for i, m := range means {
			arms[i] = Arm{Config: space.Config{"a": int64(rng.Intn(4)), "b": int64(rng.Intn(3))}, Mean: m, N: 1 + rng.Intn(3)}
		}
		cv := []float64{0, 1e-16, 0.02, 0.05, 0.2}[rng.Intn(5)]
		k := Contenders(len(arms), func(i int) Arm { return arms[i] })
		if k < len(arms) {
			cut++
		}
		if got, want := PickBest(arms[:k], cv, minimize), PickBest(arms, cv, minimize); got != want {
			t.Fatalf("case %d: %d of %d arms read: PickBest %d, all of them %d", c, k, len(arms), got, want)
		}
		got, want := PooledMeans(arms[:k], cv, minimize), PooledMeans(arms, cv, minimize)[:k]
		if !slices.EqualFunc(got, want, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Fatalf("case %d: %d of %d arms read: estimates %v, all of them %v", c, k, len(arms), got, want)
		}
	}
	if cut < 500 {
		t.Errorf("only %d of 5000 rankings were cut: the cut was not exercised", cut)
	}
}

// PickMemo answers as PickBest does, asked again with arms unchanged,
// with one arm's mean, count or config changed, or the noise changed.
func TestPickMemoIsPickBest(t *testing.T) {
	rng := rand.New(rand.NewSource(492))
	var memo PickMemo
	var arms []Arm
	var keys []string
	cv, minimize, remembered := 0.05, false, 0
	for c := range 5000 {
		switch r := rng.Intn(8); {
		case r == 0 || len(arms) == 0:
			minimize = rng.Intn(2) == 0
			arms, keys = nil, nil
			for i, m := range randomRanking(rng, 1+rng.Intn(30), minimize) {
				arms = append(arms, Arm{Config: space.Config{"a": int64(rng.Intn(4)), "b": int64(i)}, Mean: m, N: 1 + rng.Intn(3)})
				keys = append(keys, fmt.Sprint(arms[i].Config))
			}
		case r == 1:
			arms[rng.Intn(len(arms))].Mean *= 1 + 0.01*rng.NormFloat64()
		case r == 2:
			arms[rng.Intn(len(arms))].N++
		case r == 3:
			i := rng.Intn(len(arms))
			arms[i].Config = space.Config{"a": int64(rng.Intn(4)), "b": int64(100 + c)}
			keys[i] = fmt.Sprint(arms[i].Config)
		case r == 4:
			cv = []float64{0, 0.02, 0.05}[rng.Intn(3)]
		default:
			remembered++
		}
		if got, want := memo.PickBest(keys, arms, cv, minimize), PickBest(arms, cv, minimize); got != want {
			t.Fatalf("case %d: remembered pick %d, PickBest %d", c, got, want)
		}
	}
	if remembered < 1000 {
		t.Errorf("only %d picks asked again unchanged", remembered)
	}
}

// fitAdditiveByName is fitAdditive with the effects kept by knob=value
// name, as it was written first: the reference the numbered one must
// equal bit for bit.
func fitAdditiveByName(arms []Arm, near []int, y []float64) []float64 {
	keys := make([][]string, len(near))
	mu, wsum := 0.0, 0.0
	for j, i := range near {
		keys[j] = KnobKeys(arms[i].Config)
		mu += float64(arms[i].N) * y[j]
		wsum += float64(arms[i].N)
	}
	mu /= wsum
	effect := map[string]float64{}
	pred := func(j int) float64 {
		p := mu
		for _, k := range keys[j] {
			p += effect[k]
		}
		return p
	}
	values, with := knobValues(keys)
	for range poolRounds {
		for _, k := range values {
			num, den := 0.0, poolRidge
			for _, j := range with[k] {
				w := float64(arms[near[j]].N)
				num += w * (y[j] - pred(j) + effect[k])
				den += w
			}
			effect[k] = num / den
		}
	}
	out := make([]float64, len(near))
	for j := range near {
		out[j] = pred(j)
	}
	return out
}

// The fit with numbered knob values is the fit by name, bit for bit, on
// random near-top arms with shared and distinct knob values.
func TestFitAdditiveIsTheFitByName(t *testing.T) {
	rng := rand.New(rand.NewSource(493))
	for c := range 2000 {
		n := 1 + rng.Intn(30)
		arms, near, y := make([]Arm, n), []int{}, []float64{}
		for i := range arms {
			arms[i] = Arm{Config: space.Config{"a": int64(rng.Intn(4)), "b": rng.Float64() < 0.5, "c": int64(rng.Intn(1 + c%50))},
				Mean: 1000 * (1 + 0.05*rng.NormFloat64()), N: 1 + rng.Intn(3)}
			if rng.Intn(5) > 0 {
				near = append(near, i)
				y = append(y, math.Log(arms[i].Mean))
			}
		}
		if len(near) == 0 {
			continue
		}
		if got, want := fitAdditive(arms, near, y), fitAdditiveByName(arms, near, y); !slices.Equal(got, want) {
			t.Fatalf("case %d: fit %v, by name %v", c, got, want)
		}
	}
}
