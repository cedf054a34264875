package sim

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/search"
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

// simulated caches simulateAll: the points are pure functions of the
// testdata, and every calibration test reads the same answers.
var simulated struct {
	once sync.Once
	res  []simResult
}

// simulateAll evaluates every point once per test binary.
func simulateAll(t testing.TB, c calibration) []simResult {
	t.Helper()
	simulated.once.Do(func() { simulated.res = simulateEach(c) })
	return simulated.res
}

func simulateEach(c calibration) []simResult {
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

// calKey identifies a measured configuration within a document.
func calKey(p calPoint) string { return p.Doc + "|" + p.Profile + "|" + toConfig(p.Config).Key() }

// uniquePoints merges repeated measurements of one configuration (their
// mean is the measured value) and keeps the simulator's single answer.
type uniquePoint struct {
	name     string
	measured float64
	sim      float64
	groups   []string
}

func uniquePoints(res []simResult, doc string) []uniquePoint {
	idx := map[string]int{}
	var out []uniquePoint
	counts := []int{}
	for _, r := range res {
		if r.p.Doc != doc || r.err != nil || r.p.TotalTPS == 0 {
			continue
		}
		k := calKey(r.p)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, uniquePoint{name: r.p.Name, sim: r.metrics.TotalTokenThroughput})
			counts = append(counts, 0)
		}
		out[i].measured = (out[i].measured*float64(counts[i]) + r.p.TotalTPS) / float64(counts[i]+1)
		counts[i]++
		for _, g := range r.p.Groups {
			if !slicesContains(out[i].groups, g) {
				out[i].groups = append(out[i].groups, g)
			}
		}
	}
	return out
}

func slicesContains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func groupPoints(pts []uniquePoint) map[string][]uniquePoint {
	g := map[string][]uniquePoint{}
	for _, p := range pts {
		for _, name := range p.groups {
			if !strings.HasPrefix(name, "cross/") {
				g[name] = append(g[name], p)
			}
		}
	}
	return g
}

func TestCalibrationPicksEachClearWinner(t *testing.T) {
	c := loadCalibration(t)
	res := simulateAll(t, c)
	for doc := range c.Docs {
		for name, pts := range groupPoints(uniquePoints(res, doc)) {
			if len(pts) < 2 {
				continue
			}
			sort.Slice(pts, func(i, j int) bool { return pts[i].measured > pts[j].measured })
			if pts[0].measured/pts[1].measured-1 <= 0.05 {
				continue // within the seeds' own noise: no winner to reproduce
			}
			best := pts[0]
			for _, p := range pts[1:] {
				if p.sim >= best.sim {
					t.Errorf("%s/%s: measured winner %q (%.0f, sim %.0f) but sim prefers %q (measured %.0f, sim %.0f)",
						doc, name, pts[0].name, pts[0].measured, pts[0].sim, p.name, p.measured, p.sim)
				}
			}
		}
	}
}

// The issue names max running 64 vs 256, whose group winner (256 vs 512)
// is within noise; every pair of a group measured more than 20% apart
// must keep its order.
func TestCalibrationKeepsClearlySeparatedPairsInOrder(t *testing.T) {
	c := loadCalibration(t)
	res := simulateAll(t, c)
	for doc := range c.Docs {
		for name, pts := range groupPoints(uniquePoints(res, doc)) {
			for _, a := range pts {
				for _, b := range pts {
					if a.measured > 1.2*b.measured && a.sim <= b.sim {
						t.Errorf("%s/%s: %q measured %.0f > %q %.0f, but sim %.0f <= %.0f", doc, name, a.name, a.measured, b.name, b.measured, a.sim, b.sim)
					}
				}
			}
		}
	}
}

func TestCalibrationReproducesTheOOMs(t *testing.T) {
	c := loadCalibration(t)
	for _, r := range simulateAll(t, c) {
		f, failed := engines.AsFailure(r.err)
		switch {
		case r.p.Failure == "oom" && (!failed || f.Class != engines.OOM):
			t.Errorf("%s/%s: the seed saw an OOM; sim err = %v", r.p.Doc, r.p.Name, r.err)
		case r.p.Failure == "" && r.err != nil:
			t.Errorf("%s/%s: ran in the seed; sim err = %v", r.p.Doc, r.p.Name, r.err)
		}
	}
}

func TestCalibrationRankCorrelation(t *testing.T) {
	c := loadCalibration(t)
	res := simulateAll(t, c)
	for doc := range c.Docs {
		pts := uniquePoints(res, doc)
		var m, s []float64
		for _, p := range pts {
			m = append(m, p.measured)
			s = append(s, p.sim)
		}
		rho := search.Spearman(m, s)
		t.Logf("%s: Spearman ρ = %.3f over %d configurations", doc, rho, len(pts))
		if rho < 0.8 {
			t.Errorf("%s: Spearman ρ = %.3f < 0.8", doc, rho)
		}
	}
}

// Seed 002's finding: the GLM-5.2 winner beats the vLLM baseline on
// balanced, short and long context but loses on ShareGPT.
func TestCalibrationCrossWorkloadFinding(t *testing.T) {
	c := loadCalibration(t)
	res := simulateAll(t, c)
	byRole := map[string]map[string]float64{}
	for _, r := range res {
		if r.p.Doc != "glm" || r.p.Role == "" || r.err != nil {
			continue
		}
		if byRole[r.p.Profile] == nil {
			byRole[r.p.Profile] = map[string]float64{}
		}
		byRole[r.p.Profile][r.p.Role] = r.metrics.TotalTokenThroughput
	}
	for _, prof := range []string{"short-context", "long-context", "sharegpt"} {
		if len(byRole[prof]) != 2 {
			t.Fatalf("%s: missing baseline or optimized point", prof)
		}
	}
	// Balanced: the optimized point is the KV dtype winner.
	var opt, base float64
	for _, r := range res {
		if r.p.Doc == "glm" && r.p.Profile == "balanced" && r.err == nil {
			switch r.p.Name {
			case "kv/fp8_e4m3 = optimized":
				opt = r.metrics.TotalTokenThroughput
			case "engine/vllm":
				base = r.metrics.TotalTokenThroughput
			}
		}
	}
	if opt <= base {
		t.Errorf("balanced: optimized %.0f should beat the vLLM baseline %.0f", opt, base)
	}
	for _, prof := range []string{"short-context", "long-context"} {
		if o, b := byRole[prof]["optimized"], byRole[prof]["baseline"]; o <= b {
			t.Errorf("%s: optimized %.0f should beat the vLLM baseline %.0f", prof, o, b)
		}
	}
	if o, b := byRole["sharegpt"]["optimized"], byRole["sharegpt"]["baseline"]; o >= b {
		t.Errorf("sharegpt: optimized %.0f should lose to the vLLM baseline %.0f", o, b)
	}
}
