package bench

import (
	"math/rand"
	"reflect"
	"testing"
	"time"
)

// The counted gaps' distribution equals summarize of every gap, bit for
// bit, with few distinct gaps (the hash path), many (the sort path), and
// records Summarize leaves out.
func TestITLDistMatchesSummarizeOfEveryGap(t *testing.T) {
	pcts := withDefaultPercentiles([]float64{99.9, 10})
	for _, c := range []struct {
		name     string
		distinct int64
	}{{"one value", 1}, {"few distinct (the table grows)", 1000}, {"many distinct", 1 << 40}} {
		rng := rand.New(rand.NewSource(3))
		var recs []Record
		var all []float64
		n := 0
		for i := range 400 {
			r := Record{Success: i%7 != 0, Warmup: i%11 == 0}
			if i%13 == 0 {
				r.Class = ClassAborted
			}
			for range rng.Intn(300) {
				g := time.Duration(rng.Int63n(c.distinct))*time.Microsecond - time.Duration(i%3)
				r.ITL = append(r.ITL, g)
			}
			if counted(r) {
				for _, g := range r.ITL {
					all = append(all, ms(g))
				}
			}
			n += len(r.ITL)
			recs = append(recs, r)
		}
		want := summarize(all, pcts)
		if got := itlDist(recs, pcts, n); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: itlDist = %+v\nwant %+v", c.name, got, want)
		}
	}
	if got := itlDist(nil, pcts, 0); got.N != 0 || len(got.Percentiles) != len(pcts) {
		t.Errorf("no gaps: %+v", got)
	}
}
