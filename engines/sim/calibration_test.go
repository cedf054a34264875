package sim

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

type calDoc struct {
	Source string `toml:"source"`
	Model  string `toml:"model"`
	GPU    string `toml:"gpu"`
	GPUs   int    `toml:"gpus"`
	TPOT   string `toml:"tpot"`
}

type calPoint struct {
	Doc          string         `toml:"doc"`
	Name         string         `toml:"name"`
	Groups       []string       `toml:"groups"`
	Role         string         `toml:"role"`
	Profile      string         `toml:"profile"`
	Config       map[string]any `toml:"config"`
	TotalTPS     float64        `toml:"total_tps"`
	MeanTPOTms   float64        `toml:"mean_tpot_ms"`
	MeanLatencyS float64        `toml:"mean_latency_s"`
	Failure      string         `toml:"failure"`
	Repeat       bool           `toml:"repeat"`
}

type calibration struct {
	Docs     map[string]calDoc        `toml:"doc"`
	Profiles map[string]bench.Profile `toml:"profile"`
	Points   []calPoint               `toml:"point"`
}

// simResult is the simulator's answer for one calibration point.
type simResult struct {
	p       calPoint
	metrics bench.Metrics
	err     error
}

func loadCalibration(t testing.TB) calibration {
	t.Helper()
	var c calibration
	if _, err := toml.DecodeFile("testdata/calibration.toml", &c); err != nil {
		t.Fatal(err)
	}
	for name, p := range c.Profiles {
		p.Name = name
		c.Profiles[name] = p
	}
	return c
}

func (c calibration) target(doc string) space.Target {
	d := c.Docs[doc]
	return space.Target{Model: d.Model, GPU: d.GPU, GPUs: d.GPUs}
}

func toConfig(m map[string]any) space.Config {
	cfg := space.Config{}
	for k, v := range m {
		cfg[k] = space.Normalize(v)
	}
	return cfg
}

// simulateAll evaluates every point once (cached per test binary run).
func simulateAll(t testing.TB, c calibration) []simResult {
	t.Helper()
	out := make([]simResult, len(c.Points))
	sm := New()
	for i, p := range c.Points {
		recs, dur, err := sm.Evaluate(context.Background(), toConfig(p.Config), c.target(p.Doc), c.Profiles[p.Profile], 1)
		out[i] = simResult{p: p, err: err}
		if err == nil {
			out[i].metrics = bench.Summarize(recs, dur, bench.SummaryOptions{})
		}
	}
	return out
}

// measuredTPOT converts the simulated metrics to the document's TPOT
// definition.
func measuredTPOT(c calibration, r simResult) float64 {
	if c.Docs[r.p.Doc].TPOT == "latency_per_token" {
		return r.metrics.E2EL.Mean / (float64(r.metrics.TotalOutput) / float64(max(r.metrics.Completed, 1)))
	}
	return r.metrics.TPOT.Mean
}

func TestCalibrationReport(t *testing.T) {
	c := loadCalibration(t)
	res := simulateAll(t, c)
	var b strings.Builder
	fmt.Fprintf(&b, "| doc | point | profile | measured TPS | sim TPS | err | measured TPOT | sim TPOT | measured lat s | sim lat s |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range res {
		if r.err != nil {
			f, _ := engines.AsFailure(r.err)
			cls := "error"
			if f != nil {
				cls = string(f.Class)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | | | | | |\n", r.p.Doc, r.p.Name, r.p.Profile, orDash(r.p.Failure), cls)
			continue
		}
		m := r.metrics
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.0f | %+.0f%% | %.2f | %.2f | %s | %.1f |\n", r.p.Doc, r.p.Name, r.p.Profile,
			r.p.TotalTPS, m.TotalTokenThroughput, 100*(m.TotalTokenThroughput/r.p.TotalTPS-1),
			r.p.MeanTPOTms, measuredTPOT(c, r), fmtOpt(r.p.MeanLatencyS), m.E2EL.Mean/1000)
	}
	t.Log("\n" + b.String())
	if path := os.Getenv("SIM_CALIBRATION_TABLE"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func fmtOpt(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}

// spearman is the rank correlation with average ranks for ties.
func spearman(x, y []float64) float64 {
	rx, ry := ranks(x), ranks(y)
	n := float64(len(x))
	var mx, my float64
	for i := range rx {
		mx += rx[i] / n
		my += ry[i] / n
	}
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}
