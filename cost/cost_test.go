package cost

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
)

const goodFile = `# prices we pay
[[gpu]]
name = "H100"
usd_per_gpu_hour = 2.5
source = "contract A, 2026-11"

[[gpu]]
name = "L40S"
usd_per_gpu_hour = 0.8
source = "price page, 2026-12-01"
`

func TestParsePrices(t *testing.T) {
	p, err := Parse("prices.toml", []byte(goodFile))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := p.Lookup("h100")
	if !ok || g.USDPerGPUHour != 2.5 || g.Line != 2 {
		t.Fatalf("H100: %+v %v", g, ok)
	}
	if got, want := p.Cite(g), "H100: $2.5/GPU-hour (contract A, 2026-11; prices.toml:2)"; got != want {
		t.Errorf("cite %q, want %q", got, want)
	}
	if _, ok := p.Lookup("A100"); ok {
		t.Error("an unpriced GPU was found")
	}
}

// Every problem is reported at once, each at its file, line and key.
func TestParsePricesProblems(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"empty", "", "p.toml: no [[gpu]] entry"},
		{"no price", "[[gpu]]\nname = \"H100\"\nsource = \"x\"\n", "p.toml:1: gpu[0].usd_per_gpu_hour: must be a finite price > 0, not 0"},
		{"negative", "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hour = -1.0\nsource = \"x\"\n", "p.toml:3: gpu[0].usd_per_gpu_hour: must be a finite price > 0, not -1"},
		{"inf", "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hour = inf\nsource = \"x\"\n", "p.toml:3: gpu[0].usd_per_gpu_hour: must be a finite price > 0, not +Inf"},
		{"a typo's extra zeros", "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hour = 1e300\nsource = \"x\"\n", "p.toml:3: gpu[0].usd_per_gpu_hour: is 1e+300, more than the 10000"},
		{"no source", "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hour = 2.0\n", "p.toml:1: gpu[0].source: is required"},
		{"no name", "[[gpu]]\nusd_per_gpu_hour = 2.0\nsource = \"x\"\n", "p.toml:1: gpu[0].name: is required"},
		{"twice", goodFile + "[[gpu]]\nname = \"h100\"\nusd_per_gpu_hour = 3.0\nsource = \"y\"\n", "p.toml:12: gpu[2].name: \"h100\" is priced twice (also gpu[0], line 2)"},
		{"typo", "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hr = 2.0\nsource = \"x\"\n", "unknown key; did you mean \"usd_per_gpu_hour\"?"},
		{"syntax", "[[gpu]\n", "price file p.toml: toml:"},
	}
	for _, c := range cases {
		_, err := Parse("p.toml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestLoadBounds(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "none.toml")); err == nil {
		t.Error("a missing file loaded")
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, make([]byte, maxFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("big file: %v", err)
	}
	ok := filepath.Join(dir, "prices.toml")
	if err := os.WriteFile(ok, []byte(goodFile), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := Load(ok); err != nil || len(p.GPUs) != 2 || p.File != ok {
		t.Errorf("Load = %+v, %v", p, err)
	}
}

func TestMetrics(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }
	cases := []struct {
		name   string
		values map[string]float64
		gpus   int
		price  float64
		want   map[string]float64
	}{
		// 8 GPUs at $2.50: $20/h. 2,000 output tok/s = 7.2M tok/h →
		// $2.777…/M; 10,000 total tok/s = 36M tok/h → $0.555…/M.
		{"both", map[string]float64{"output_tps": 2000, "total_tps": 10000}, 8, 2.5,
			map[string]float64{bench.MetricUSDPerHour: 20, bench.MetricUSDPerMTokOutput: 20 / 7.2, bench.MetricUSDPerMTokTotal: 20 / 36.0}},
		{"no throughput", map[string]float64{}, 2, 1, map[string]float64{bench.MetricUSDPerHour: 2}},
		{"zero output", map[string]float64{"output_tps": 0, "total_tps": 100}, 1, 3.6,
			map[string]float64{bench.MetricUSDPerHour: 3.6, bench.MetricUSDPerMTokTotal: 10}},
		{"no gpus", map[string]float64{"output_tps": 1}, 0, 1, map[string]float64{}},
		{"no price", map[string]float64{"output_tps": 1}, 1, 0, map[string]float64{}},
		{"nan price", map[string]float64{"output_tps": 1}, 1, math.NaN(), map[string]float64{}},
	}
	for _, c := range cases {
		got := Metrics(c.values, c.gpus, c.price)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for k, w := range c.want {
			if !near(got[k], w) || !bench.CostMetric(k) {
				t.Errorf("%s: %s = %v, want %v", c.name, k, got[k], w)
			}
		}
	}
}

func FuzzParsePrices(f *testing.F) {
	f.Add([]byte(goodFile))
	f.Add([]byte("[[gpu]]\nname = 'x'\n\"usd_per_gpu_hour\" = 1e308\nsource = \"\"\"a\nb\"\"\"\n[[ gpu ]]\n"))
	f.Add([]byte("gpu = 3\n[[gpu]]\n= 2\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse("f.toml", src)
		if err != nil {
			return
		}
		for _, g := range p.GPUs {
			if !(g.USDPerGPUHour > 0) || math.IsInf(g.USDPerGPUHour, 0) || strings.TrimSpace(g.Name) == "" || g.Source == "" {
				t.Fatalf("accepted %+v", g)
			}
			if m := Metrics(map[string]float64{"output_tps": 1}, 1, g.USDPerGPUHour); math.IsNaN(m[bench.MetricUSDPerMTokOutput]) {
				t.Fatalf("NaN from %+v", g)
			}
		}
	})
}

func TestFleet(t *testing.T) {
	cases := []struct {
		name   string
		values map[string]float64
		gpus   int
		rps    float64
		want   map[string]float64
	}{
		// 25 req/s at 4.8 req/s a replica: 6 replicas (5 serve only 24).
		{"rounds up", map[string]float64{"max_rate_under_slo": 4.8}, 2, 25, map[string]float64{bench.MetricReplicas: 6, bench.MetricGPUsTotal: 12}},
		{"exact", map[string]float64{"max_rate_under_slo": 5}, 8, 25, map[string]float64{bench.MetricReplicas: 5, bench.MetricGPUsTotal: 40}},
		{"one replica is plenty", map[string]float64{"max_rate_under_slo": 100}, 1, 0.5, map[string]float64{bench.MetricReplicas: 1, bench.MetricGPUsTotal: 1}},
		{"no rate searched", map[string]float64{"output_tps": 100}, 1, 5, map[string]float64{}},
		{"met the SLO at no rate", map[string]float64{"max_rate_under_slo": 0}, 1, 5, map[string]float64{}},
		{"no traffic", map[string]float64{"max_rate_under_slo": 3}, 1, 0, map[string]float64{}},
		{"no gpus", map[string]float64{"max_rate_under_slo": 3}, 0, 5, map[string]float64{}},
	}
	for _, c := range cases {
		got := Fleet(c.values, c.gpus, c.rps)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for k, w := range c.want {
			if got[k] != w {
				t.Errorf("%s: %s = %v, want %v", c.name, k, got[k], w)
			}
		}
	}
}
