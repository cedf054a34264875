package objective

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/cost"
	"github.com/servetune/servetune/space"
)

var testPrices = &cost.Prices{File: "prices.toml", GPUs: []cost.Price{
	{Name: "H100", USDPerGPUHour: 2.5, Source: "test"},
	{Name: "A100-80GB", USDPerGPUHour: 1.5, Source: "test"},
}}

// A trial whose gpu knob names another GPU type runs on that type's card
// and is priced at that type's price; without a price file it has no cost
// metrics (undefined, not zero).
func TestMeasureCostOnTheTrialsGPU(t *testing.T) {
	measure := func(cfg space.Config, prices *cost.Prices) map[string]float64 {
		t.Helper()
		tgt := qwenTarget
		tgt.PriceList, tgt.GPUs = prices, 2
		res, err := Measure(context.Background(), NewSimRunner(), Trial{Config: cfg, Target: tgt,
			Profiles: []bench.Profile{smallProfile("a", 8)}, MaxFailedFraction: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		return res.Metrics["a"]
	}
	h100 := measure(space.Config{"engine": "vllm", "tp": int64(2)}, testPrices)
	a100 := measure(space.Config{"engine": "vllm", "tp": int64(2), "gpu": "A100-80GB"}, testPrices)
	if h100["output_tps"] == a100["output_tps"] {
		t.Fatalf("the gpu knob did not change the simulated card: output_tps %v on both", h100["output_tps"])
	}
	for _, c := range []struct {
		name  string
		m     map[string]float64
		price float64
	}{{"H100", h100, 2.5}, {"A100-80GB", a100, 1.5}} {
		perHour := 2 * c.price // tp=2
		if got := c.m[bench.MetricUSDPerHour]; got != perHour {
			t.Errorf("%s: usd_per_hour %v, want %v", c.name, got, perHour)
		}
		want := perHour / (c.m["output_tps"] * 3600) * 1e6
		if got := c.m[bench.MetricUSDPerMTokOutput]; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: usd_per_mtok_output %v, want %v", c.name, got, want)
		}
		if _, ok := c.m[bench.MetricUSDPerMTokTotal]; !ok {
			t.Errorf("%s: no usd_per_mtok_total", c.name)
		}
	}
	none := measure(space.Config{"engine": "vllm", "tp": int64(2)}, nil)
	for _, k := range []string{bench.MetricUSDPerHour, bench.MetricUSDPerMTokOutput, bench.MetricUSDPerMTokTotal} {
		if _, ok := none[k]; ok {
			t.Errorf("%s without a price file", k)
		}
	}
}

// A cost objective is judged at checkpoints as at the end.
func TestCheckpointsCarryCost(t *testing.T) {
	var judged map[string]float64
	tr := Trial{Config: space.Config{"engine": "vllm", "gpu": "A100-80GB"}, Target: space.Target{Engine: "vllm", GPU: "H100", GPUs: 8, PriceList: testPrices},
		Judge: func(c Checkpoint) Verdict { judged = c.Metrics; return Verdict{} }}
	tr.Report(&Result{}, "p", 5, map[string]float64{"output_tps": 1000})
	if got, want := judged[bench.MetricUSDPerMTokOutput], 1.5/(1000*3600)*1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("checkpoint usd_per_mtok_output %v, want %v (one A100 at $1.5/h)", got, want)
	}
}

// With a target rate, a profile that searched its max rate under the SLO
// gets the replicas serving the rate, their GPUs and the whole
// deployment's usd_per_hour; a profile that met the SLO at no rate gets
// none of them (no replica count serves the traffic).
func TestMeasureReplicasForTheTrafficRate(t *testing.T) {
	r := runnerFunc(func(_ context.Context, tr Trial) (Result, error) {
		return Result{Metrics: map[string]map[string]float64{
			"searched": {bench.MetricMaxRateUnderSLO: 4.8, "output_tps": 1000, "completed": 10},
			"missed":   {bench.MetricMaxRateUnderSLO: 0, "output_tps": 1000, "completed": 10},
			"plain":    {"output_tps": 1000, "completed": 10},
		}}, nil
	})
	tr := Trial{Config: space.Config{"engine": "vllm", "tp": int64(2), "gpu": "A100-80GB"},
		Target: space.Target{Engine: "vllm", GPU: "H100", GPUs: 8, PriceList: testPrices, TrafficRPS: 25}}
	res, err := Measure(context.Background(), r, tr)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Metrics["searched"]
	// ceil(25 / 4.8) = 6 replicas of 2 A100s at $1.5.
	if s[bench.MetricReplicas] != 6 || s[bench.MetricGPUsTotal] != 12 || s[bench.MetricUSDPerHour] != 18 {
		t.Errorf("searched: replicas %v gpus_total %v usd_per_hour %v, want 6, 12, 18",
			s[bench.MetricReplicas], s[bench.MetricGPUsTotal], s[bench.MetricUSDPerHour])
	}
	// The cost per token is one replica's, at its own throughput.
	if got, want := s[bench.MetricUSDPerMTokOutput], 3/(1000*3600.0)*1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("usd_per_mtok_output %v, want %v", got, want)
	}
	m := res.Metrics["missed"]
	for _, k := range []string{bench.MetricReplicas, bench.MetricGPUsTotal, bench.MetricUSDPerHour} {
		if v, ok := m[k]; ok {
			t.Errorf("missed: %s = %v, want absent", k, v)
		}
	}
	if p := res.Metrics["plain"]; p[bench.MetricUSDPerHour] != 3 {
		t.Errorf("a profile without a rate search: usd_per_hour %v, want one replica's 3", p[bench.MetricUSDPerHour])
	}
}
