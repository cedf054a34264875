package search

import (
	"math"
	"slices"
	"testing"

	"github.com/servetune/servetune/space"
)

// twinArms are the h200-is-b200 reality's near-top configs as a study
// sees them around trial 30: three with chunked_prefill 32768 (truly best,
// whatever mem_fraction), three with 16384 (truly 3% below), one of which
// read lucky once.
func twinArms(lucky float64) []Arm {
	cfg := func(cp int64, mf float64) space.Config {
		return space.Config{"engine": "sglang", "chunked_prefill": cp, "mem_fraction": mf}
	}
	return []Arm{
		{cfg(16384, 0.7), lucky, 1},
		{cfg(32768, 0.75), 55500, 2},
		{cfg(32768, 0.7), 55000, 2},
		{cfg(16384, 0.75), 53000, 2},
		{cfg(16384, 0.8), 53200, 2},
		{cfg(32768, 0.8), 54800, 1},
		{cfg(8192, 0.75), 30000, 1}, // far below: not near the top
	}
}

func TestPickBest(t *testing.T) {
	cp := func(c int64) space.Config { return space.Config{"chunked_prefill": c} }
	for _, c := range []struct {
		name     string
		arms     []Arm
		cv       float64
		minimize bool
		want     []int // any of these
	}{
		{"a lucky single twin loses to a config with the knob value its similar configs favour", twinArms(57000), 0.05, false, []int{1, 2}},
		{"measured alike, the model does not outvote the best mean", once(twinArms(56000)), 0.05, false, []int{0}},
		{"noise-free measurements are exact: the best mean", twinArms(57000), 0, false, []int{0}},
		{"a twin far ahead is not overruled", twinArms(64000), 0.05, false, []int{0}},
		{"too few near the top to pool: the best mean", []Arm{{cp(1), 57000, 1}, {cp(2), 55000, 2}, {cp(3), 30000, 1}}, 0.05, false, []int{0}},
		{"minimising: the mirror image", mirror(twinArms(57000)), 0.05, true, []int{1, 2}},
		{"none measured", nil, 0.05, false, []int{-1}},
	} {
		if got := PickBest(c.arms, c.cv, c.minimize); !slices.Contains(c.want, got) {
			t.Errorf("%s: PickBest = %d, want %d (estimates %v)", c.name, got, c.want, PooledMeans(c.arms, c.cv, c.minimize))
		}
	}
}

// once is arms as if each was measured once.
func once(arms []Arm) []Arm {
	out := make([]Arm, len(arms))
	for i, a := range arms {
		out[i] = Arm{a.Config, a.Mean, 1}
	}
	return out
}

// mirror turns throughputs into latencies: 1e9/v, lower is better.
func mirror(arms []Arm) []Arm {
	out := make([]Arm, len(arms))
	for i, a := range arms {
		out[i] = Arm{a.Config, 1e9 / a.Mean, a.N}
	}
	return out
}

func TestPooledMeans(t *testing.T) {
	arms := twinArms(57000)
	est := PooledMeans(arms, 0.05, false)
	if est[6] != arms[6].Mean {
		t.Errorf("a config far from the top keeps its mean: %v, want %v", est[6], arms[6].Mean)
	}
	if est[0] >= arms[0].Mean {
		t.Errorf("the lucky single is not pulled down: %v from %v", est[0], arms[0].Mean)
	}
	// The model counts for at most poolMaxWeight measurements: a single
	// keeps at least 1/(1+poolMaxWeight) of its own log mean's distance
	// from the model's prediction, so it moves no further than the
	// near-top spread allows.
	for i, a := range arms[:6] {
		if r := math.Abs(math.Log(est[i] / a.Mean)); r > poolRegion {
			t.Errorf("arm %d moved by %.3f (log), more than the near-top region", i, r)
		}
	}
	for i, v := range PooledMeans(arms, 0, false) {
		if v != arms[i].Mean {
			t.Errorf("noise-free arm %d: %v, want its mean %v", i, v, arms[i].Mean)
		}
	}
}
