package sim

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/space"
)

// A decode server's request whose prompt KV arrived from a prefill
// server reaches its first token sooner than one computing an 8k-token
// prompt, and its later tokens no slower.
func TestArrivedPromptSkipsItsPrefill(t *testing.T) {
	firstToken := func(arrived int) (ttft, rest time.Duration) {
		synctest.Test(t, func(t *testing.T) {
			l, cancel := startLive(t, space.Config{"engine": "sglang"}, 1)
			defer cancel()
			start := time.Now()
			st, err := l.Submit(context.Background(), LiveRequest{Input: 8192, Output: 8, Arrived: arrived})
			if err != nil {
				t.Fatal(err)
			}
			got := collect(t, st)
			ttft = got[0].at.Sub(start)
			rest = got[len(got)-1].at.Sub(got[0].at)
		})
		return ttft, rest
	}
	computed, computedRest := firstToken(0)
	arrived, arrivedRest := firstToken(8192)
	if arrived*5 > computed {
		t.Fatalf("TTFT with the prompt's KV arrived %v, computed %v: want at least 5x shorter", arrived, computed)
	}
	if arrivedRest > computedRest+computedRest/10 {
		t.Fatalf("decode after arrival %v, after computing %v", arrivedRest, computedRest)
	}
}
