package motpe

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// The joint density sums one log term per knob; summed in the config's
// map order it differs in its last bits from call to call, and the
// sampler's argmax over near-tied candidates then proposes another config
// from the same seed. It must be the same number every time.
func TestJointLogPDFIsTheSameEveryCall(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var params []space.Param
	for i := range 12 {
		params = append(params, space.Param{Name: fmt.Sprint("k", i), Kind: space.Float, Low: 0, High: 1})
	}
	var obs []search.Observation
	var w []float64
	for range 8 {
		c := space.Config{}
		for _, p := range params {
			c[p.Name] = rng.Float64()
		}
		obs = append(obs, search.Observation{Config: c})
		w = append(w, rng.Float64())
	}
	zs := map[string]*parzen{}
	for _, p := range params {
		zs[p.Name] = newParzen(p, obs, w)
	}
	wj := append(append([]float64(nil), w...), 1.0)
	c := obs[3].Config
	first := jointLogPDF(zs, wj, c)
	for range 500 {
		if got := jointLogPDF(zs, wj, c); math.Float64bits(got) != math.Float64bits(first) {
			t.Fatalf("jointLogPDF = %v, then %v: not the same number for the same config", first, got)
		}
	}
}
