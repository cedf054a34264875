package objective

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/enginetest"
)

// The search's path on a server that meets the target up to a knee: low,
// high, then bisection, ending within 2% below the knee, or at once when
// low already misses or high already meets.
func TestRateSearchPath(t *testing.T) {
	cases := []struct {
		name      string
		knee      float64
		want      float64
		maxSteps  int
		wantSteps int
	}{
		{"knee inside", 10, 10, maxRateSteps, 0},
		{"knee near low", 0.6, 0.6, maxRateSteps, 0},
		{"low misses", 0.4, 0, 1, 1},
		{"high meets", 100, 64, 2, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := rateSearch{RateSearch: bench.RateSearch{Attainment: 0.99, Low: 0.5, High: 64}}
			var rates []float64
			for rate, ok := s.next(); ok; rate, ok = s.next() {
				rates = append(rates, rate)
				s.observe(rate, rate <= tc.knee)
			}
			if len(rates) > tc.maxSteps || tc.wantSteps > 0 && len(rates) != tc.wantSteps {
				t.Errorf("rates %v: %d steps, want at most %d (exactly %d)", rates, len(rates), tc.maxSteps, tc.wantSteps)
			}
			if s.pass > tc.want || s.pass < tc.want/(1+rateTolerance)-1e-9 {
				t.Errorf("found %v after %v, want within 2%% below %v", s.pass, rates, tc.want)
			}
			if rates[0] != 0.5 {
				t.Errorf("first step at %v, want low", rates[0])
			}
		})
	}
}

// searchRate reports the metrics of the best step with the rate found,
// a checkpoint per step carrying the rate so far, and stops when the
// judge says so.
func TestSearchRateReportsAndPrunes(t *testing.T) {
	p := bench.Profile{Name: "chat", NumPrompts: 10, SearchRate: &bench.RateSearch{Attainment: 0.9, Low: 1, High: 16}}
	step := func(_ context.Context, q bench.Profile) (map[string]float64, error) {
		if q.SearchRate != nil {
			return nil, errors.New("a step must run at a fixed rate")
		}
		att := 1.0
		if q.RequestRate > 5 {
			att = 0.5
		}
		return map[string]float64{"slo_attainment": att, "goodput_rps": q.RequestRate * att}, nil
	}
	var seen []float64
	tr := Trial{Judge: func(c Checkpoint) Verdict {
		seen = append(seen, c.Metrics[bench.MetricMaxRateUnderSLO])
		return Verdict{}
	}}
	res := Result{}
	v, pruned, err := searchRate(context.Background(), tr, &res, p, step)
	if err != nil || pruned {
		t.Fatal(err, pruned)
	}
	if v[bench.MetricMaxRateUnderSLO] < 5/(1+rateTolerance) || v[bench.MetricMaxRateUnderSLO] > 5 || v["goodput_rps"] != v[bench.MetricMaxRateUnderSLO] {
		t.Errorf("metrics %v, want the rate found near 5 and goodput at that rate", v)
	}
	if len(seen) < 3 || seen[0] != 1 || seen[1] != 1 || !sorted(seen) {
		t.Errorf("checkpoints saw rates %v, want 1, 1 (high missed), then non-decreasing", seen)
	}
	tr.Judge = func(c Checkpoint) Verdict { return Verdict{Stop: c.Step == 2} }
	res = Result{}
	v, pruned, err = searchRate(context.Background(), tr, &res, p, step)
	if err != nil || !pruned || len(res.Checkpoints) != 2 || v[bench.MetricMaxRateUnderSLO] != 1 {
		t.Errorf("pruned at step 2: %v %v %v %v", v, pruned, err, res.Checkpoints)
	}
}

func sorted(xs []float64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1] {
			return false
		}
	}
	return true
}

func TestMissedTarget(t *testing.T) {
	slo := &bench.SLO{TTFTMs: 1}
	cases := []struct {
		name      string
		m         bench.Metrics
		total     int
		target    float64
		wantMissd bool
	}{
		// 100 requests at 0.95 allow 5 misses.
		{"five misses allowed", bench.Metrics{Completed: 10, SLOAttainment: 0.5, GoodputSLO: slo}, 100, 0.95, false},
		{"six are too many", bench.Metrics{Completed: 12, SLOAttainment: 0.5, GoodputSLO: slo}, 100, 0.95, true},
		{"failures miss", bench.Metrics{Completed: 4, Failed: 6, SLOAttainment: 0.4, GoodputSLO: slo}, 100, 0.95, true},
		{"no SLO, no verdict", bench.Metrics{Completed: 12}, 100, 0.95, false},
	}
	for _, tc := range cases {
		if got := missedTarget(tc.m, tc.total, tc.target); got != tc.wantMissd {
			t.Errorf("%s: missedTarget = %v", tc.name, got)
		}
	}
}

// On a real engine (the fake one here) the search runs every step on the
// one launched engine: an SLO every request meets ends at high after two
// steps; one no request meets ends at low, its step stopped early.
func TestProcessRunnerSearchesRate(t *testing.T) {
	cases := []struct {
		name  string
		slo   bench.SLO
		steps int
		rate  float64
	}{
		{"met everywhere", bench.SLO{E2ELMs: 60_000}, 2, 400},
		{"met nowhere", bench.SLO{TTFTMs: 1e-6}, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := fastRunner(t)
			tgt := enginetest.Target("sglang", "org/model", enginetest.Options{Worker: true})
			p := tinyProfile("chat", 20, 0)
			slo := tc.slo
			p.SLO, p.SearchRate = &slo, &bench.RateSearch{Attainment: 0.9, Low: 200, High: 400}
			var steps []int
			res, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Number: 1, Target: tgt, Profiles: []bench.Profile{p},
				Judge: func(c Checkpoint) Verdict { steps = append(steps, c.Step); return Verdict{} }})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			m := res.Metrics["chat"]
			if len(steps) != tc.steps || m[bench.MetricMaxRateUnderSLO] != tc.rate {
				t.Errorf("steps %v, metrics %v: want %d steps and rate %v", steps, m, tc.steps, tc.rate)
			}
			if tc.rate == 0 && m["completed"]+m["failed"] >= 20 {
				t.Errorf("a step that cannot meet the target ran all its requests: %v", m)
			}
			if tc.rate > 0 && (m["slo_attainment"] != 1 || m["goodput_rps"] <= 0) {
				t.Errorf("metrics at the rate found %v", m)
			}
		})
	}
}

func TestRateSearchDuration(t *testing.T) {
	p := bench.Profile{NumPrompts: 290, Warmup: 10, SearchRate: &bench.RateSearch{Attainment: 0.99, Low: 0.5, High: 64}}
	if got := RateSearchDuration(p); got != maxRateSteps*600*time.Second {
		t.Errorf("bound %v, want %d steps of 300 requests at 0.5 req/s", got, maxRateSteps)
	}
	p.MaxDuration = time.Minute
	if got := RateSearchDuration(p); got != maxRateSteps*time.Minute {
		t.Errorf("bound %v, want %d steps of max_duration", got, maxRateSteps)
	}
}
