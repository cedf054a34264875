package sim

import (
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// newTestScheduler builds the scheduler Evaluate would run.
func newTestScheduler(t *testing.T, cfg space.Config, tgt space.Target, p bench.Profile) *scheduler {
	t.Helper()
	s, err := resolve(DefaultCards(), cfg, tgt)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.plan()
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := workload(p)
	if err != nil {
		t.Fatal(err)
	}
	return newScheduler(s, newPerf(s, plan), plan, reqs, p, 1)
}

// pending lists the times of events already scheduled: step
// completions, requests becoming visible to an idle rank, and the next
// arrival when the client has a free slot.
func pending(sc *scheduler) []float64 {
	var ts []float64
	for _, g := range sc.groups {
		if g.busy {
			ts = append(ts, g.until)
			continue
		}
		for _, rk := range g.ranks {
			for r := range rk.waiting.all() {
				if r.visible > sc.now {
					ts = append(ts, r.visible)
				}
			}
		}
	}
	if sc.next < len(sc.reqs) && (sc.cap == 0 || sc.inflight < sc.cap) {
		ts = append(ts, max(sc.reqs[sc.next].arrival, sc.now))
	}
	return ts
}

// The clock only moves forward, and never past an event already
// scheduled: jumping past one would apply it later than it happened,
// i.e. run that part of the simulation backwards.
func TestSimulatedTimeNeverDecreases(t *testing.T) {
	profiles := map[string]bench.Profile{
		"rate 1":        {Name: "r1", Dataset: "random", InputLen: 1000, OutputLen: 100, NumPrompts: 30, RequestRate: 1, Seed: 3},
		"rate 1 ranged": {Name: "r1r", Dataset: "random", InputLen: 1000, OutputLen: 100, RangeRatio: 0.5, NumPrompts: 40, RequestRate: 1, Seed: 3},
		"rate 1 capped": {Name: "r1c", Dataset: "random", InputLen: 1000, OutputLen: 100, RangeRatio: 0.5, NumPrompts: 40, RequestRate: 1, MaxConcurrency: 2, Seed: 3},
		"burst capped":  small(4),
		"rate 20":       {Name: "r20", Dataset: "random", InputLen: 2000, OutputLen: 200, NumPrompts: 80, RequestRate: 20, MaxConcurrency: 16, Seed: 5},
	}
	for name, p := range profiles {
		for _, eng := range []string{"vllm", "sglang"} {
			sc := newTestScheduler(t, space.Config{"engine": eng}, qwenTarget, p)
			for {
				prev := sc.now
				sc.startDue()
				due := pending(sc)
				if !sc.tick() {
					break
				}
				if sc.now < prev {
					t.Fatalf("%s/%s: clock went back from %.6f to %.6f", name, eng, prev, sc.now)
				}
				for _, e := range due {
					if e < sc.now {
						t.Fatalf("%s/%s: clock jumped from %.6f to %.6f over an event at %.6f", name, eng, prev, sc.now, e)
					}
				}
			}
		}
	}
}

// At one request per second a small model is idle between requests, so
// TTFT is the request overhead plus one prefill, not a queue.
func TestLowRateTTFTIsOnePrefill(t *testing.T) {
	p := bench.Profile{Name: "r1", Dataset: "random", InputLen: 1000, OutputLen: 100, NumPrompts: 30, RequestRate: 1, Seed: 3}
	_, m := eval(t, space.Config{"engine": "vllm"}, qwenTarget, p, 0)
	if m.TTFT.Mean <= 0 || m.TTFT.Mean > 200 {
		t.Fatalf("mean TTFT %.1f ms at rate 1; want one prefill plus overhead (< 200 ms)", m.TTFT.Mean)
	}
}

// TestUnservedTailIsStillPrefilling holds the invariant that lets a step
// skip rankState.running[tail:]: every request there is still prefilling
// and has no tokens scheduled, so finish would advance it by nothing. The
// profiles overload the KV cache, so that admitted prompts queue for the
// chunked-prefill budget and preemptions pop them off again.
func TestUnservedTailIsStillPrefilling(t *testing.T) {
	p := bench.Profile{Name: "overload", Dataset: "random", InputLen: 1000, OutputLen: 200, RangeRatio: 0.5,
		NumPrompts: 3000, MaxConcurrency: 2048, Seed: 1}
	for _, engine := range []string{"vllm", "sglang", "trtllm"} {
		t.Run(engine, func(t *testing.T) {
			sc := newTestScheduler(t, space.Config{"engine": engine, "tp": int64(8)}, glmTarget, p)
			longest := 0
			check := func(when string) {
				for _, g := range sc.groups {
					for _, rk := range g.ranks {
						if rk.tail > len(rk.running) {
							continue // clamped before use
						}
						longest = max(longest, len(rk.running)-rk.tail)
						for _, r := range rk.running[rk.tail:] {
							if r.prefilled >= r.prompt || r.portion != 0 {
								t.Fatalf("%s at %.3fs: request %d in the unserved tail has prefilled %d of %d, portion %d",
									when, sc.now, r.idx, r.prefilled, r.prompt, r.portion)
							}
						}
					}
				}
			}
			for more := true; more; {
				sc.startDue()
				check("after start")
				more = sc.tick()
				check("after finish")
			}
			if longest == 0 {
				t.Fatal("no request ever waited in the unserved tail: the profile does not exercise it")
			}
		})
	}
}
