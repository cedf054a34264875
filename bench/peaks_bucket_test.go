package bench

import (
	"math/rand"
	"testing"
	"time"
)

// peaksByDivision is peaks' token count as it was defined: every chunk's
// second divided out on its own.
func peaksByDivision(recs []Record) float64 {
	first, n, any := peakBuckets(recs)
	if !any {
		return 0
	}
	tok := make([]int, n)
	for _, r := range recs {
		if r.Warmup || !r.Success {
			continue
		}
		t := r.Start + r.TTFT
		for i := -1; i < len(r.ITL); i++ {
			if i >= 0 {
				t += r.ITL[i]
			}
			if b := int((t - first) / time.Second); b >= 0 && b < n {
				tok[b]++
			}
		}
	}
	pt := 0
	for _, c := range tok {
		pt = max(pt, c)
	}
	return float64(pt)
}

// The token peak counts each chunk in the second it arrived in, whatever
// the gaps: negative ones (records read from a file), chunks before the
// first start, gaps that skip seconds and ones that land on a boundary.
func TestPeakTokensMatchDivisionPerChunk(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := range 300 {
		var recs []Record
		for range 1 + rng.Intn(20) {
			r := Record{Success: rng.Intn(8) > 0, Start: time.Duration(rng.Int63n(int64(5 * time.Second)))}
			r.TTFT = time.Duration(rng.Int63n(int64(2*time.Second))) - time.Second/2
			for range rng.Intn(200) {
				var g time.Duration
				switch rng.Intn(6) {
				case 0:
					g = -time.Duration(rng.Int63n(int64(time.Second)))
				case 1:
					g = time.Duration(rng.Intn(3)) * time.Second // onto a boundary
				default:
					g = time.Duration(rng.Int63n(int64(60 * time.Millisecond)))
				}
				r.ITL = append(r.ITL, g)
				r.Latency += g
			}
			r.Latency += r.TTFT
			recs = append(recs, r)
		}
		got, _ := peaks(recs)
		if want := peaksByDivision(recs); got != want {
			t.Fatalf("trial %d: peak tokens %v, by division per chunk %v", trial, got, want)
		}
	}
}
