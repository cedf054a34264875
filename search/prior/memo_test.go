package prior

import (
	"math"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/space"
)

// The memoised corrections and shares are what a fresh computation gives
// at every step, however the residual and the regions' errors change
// between the asks (and when the table replaces its residual model).
func TestMemosFollowEveryChange(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cfg := func() space.Config {
		return space.Config{
			"engine":         []string{"vllm", "sglang"}[rng.Intn(2)],
			"tp":             int64(1 << rng.Intn(3)),
			"dp":             int64(1 << rng.Intn(2)),
			"mem_fraction":   []float64{0.8, 0.9}[rng.Intn(2)],
			"kv_cache_dtype": []string{"auto", "fp8"}[rng.Intn(2)],
		}
	}
	var cands []*candidate
	for range 30 {
		cands = append(cands, &candidate{cfg: cfg()})
	}
	tab := &table{resid: newResidual(2)}
	rt := newRegionTrust()
	for step := range 300 {
		switch rng.Intn(5) {
		case 0:
			tab.resid.add(rng.Intn(2), cfg(), rng.NormFloat64())
		case 1:
			tab.resid.addPruned(rng.Intn(2), cfg(), rng.NormFloat64())
		case 2:
			rt.miss(cfg(), math.Abs(rng.NormFloat64())*float64(1+rng.Intn(3)))
		case 3:
			if rng.Intn(10) == 0 {
				tab.resid = newResidual(2) // relearn
			}
		}
		cd := cands[rng.Intn(len(cands))]
		obj := rng.Intn(2)
		if got, want := tab.residOf(obj, cd), tab.resid.predict(obj, cd.cfg); got != want {
			t.Fatalf("step %d: memoised residual %v, fresh %v", step, got, want)
		}
		if got, want := rt.everyOf(cd), rt.every(cd.cfg); got != want {
			t.Fatalf("step %d: memoised share 1 in %d, fresh 1 in %d", step, got, want)
		}
	}
	var none *regionTrust
	if got := none.everyOf(cands[0]); got != priorEvery {
		t.Errorf("a nil regionTrust gives 1 in %d, want every turn's %d", got, priorEvery)
	}
}

// sameValue agrees with comparing the formatted values for every pair of
// kinds a config holds, including the values that compare equal yet
// format differently (-0 and 0) and those that format alike yet compare
// unequal (NaN).
func TestSameValueIsFormattedEquality(t *testing.T) {
	vals := []any{"8", "a", "", true, false, int64(8), int64(0), int64(-1), 8.0, 0.0, math.Copysign(0, -1),
		0.5, math.NaN(), math.Inf(1), int(8), nil}
	for _, a := range vals {
		for _, b := range vals {
			if got, want := sameValue(a, b), space.FormatValue(a) == space.FormatValue(b); got != want {
				t.Errorf("sameValue(%#v, %#v) = %v, formatted equality %v", a, b, got, want)
			}
		}
	}
}
