package studies

import (
	"fmt"
	"math"
	"testing"
)

// The pooled noise feeds the confirmation's tolerance; two runs of the
// same study must agree on it to the last bit, whatever Go's map order.
func TestPooledCVIsTheSameEveryTime(t *testing.T) {
	groups := map[string][]float64{}
	for i := range 40 {
		base := 1000 + 37*float64(i)
		groups[fmt.Sprint("cfg", i)] = []float64{base * 1.031, base * 0.977, base * (1 + 0.001*float64(i))}
	}
	first, ok := PooledCV(groups)
	if !ok {
		t.Fatal("40 repeated groups: noise not measured")
	}
	for range 200 {
		got, _ := PooledCV(groups)
		if math.Float64bits(got) != math.Float64bits(first) {
			t.Fatalf("PooledCV = %v then %v: depends on map order", first, got)
		}
	}
}
