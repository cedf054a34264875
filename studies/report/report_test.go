package report

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func TestMarkdownGolden(t *testing.T) {
	f := fixtureFull(t, 40)
	var b bytes.Buffer
	if err := f.Markdown(&b, f.Plots()); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", b.Bytes())
}

func TestPlotDataGolden(t *testing.T) {
	f := fixtureFull(t, 40)
	b, err := json.MarshalIndent(f.Plots(), "", " ")
	if err != nil {
		t.Fatalf("plot data must be JSON (no NaN): %v", err)
	}
	golden(t, "plots.json", append(b, '\n'))
}

func TestFullReportHoldsWhatTheIssueAsks(t *testing.T) {
	f := fixtureFull(t, 40)
	if len(f.Profiles) != 2 || f.Profiles[0].Profile != "balanced" || f.Profiles[1].Profile != "decode_heavy" {
		t.Fatalf("want a table per profile the trials ran, got %+v", f.Profiles)
	}
	if !f.Profiles[1].Rows[0].Baseline || len(f.Profiles[1].Rows) != 1+len(f.Summary.Winners) {
		t.Errorf("decode_heavy rows: %+v", f.Profiles[1].Rows)
	}
	classes := map[string]int{}
	for _, g := range f.Failures {
		classes[g.Class] = g.Count
	}
	if classes["oom"] == 0 || classes["pruned"] == 0 || classes["crashed_during_benchmark"] == 0 {
		t.Errorf("failures by class: %+v", f.Failures)
	}
	ids := map[string]bool{}
	for _, p := range f.Plots() {
		ids[p.ID] = true
	}
	for _, id := range []string{"pareto", "best-trial-0", "best-hours-1", "slice-dp", "slice-max_running", "oom"} {
		if !ids[id] {
			t.Errorf("no plot %s among %v", id, ids)
		}
	}
	if f.Importance[0].Knob != "max_running" && f.Importance[0].Knob != "dp" {
		t.Errorf("throughput is driven by max_running and dp; importance ranks %+v", f.Importance)
	}
	if f.Env.Unit != "simulated GPU-hours" || len(f.Env.Engines) != 2 || f.Env.Engines[1] != (EngineVersion{Engine: "vllm"}) || f.Env.Engines[0] != (EngineVersion{Engine: "sglang", Version: "0.5.2"}) {
		t.Errorf("environment %+v", f.Env)
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	f := fixtureFull(t, 40)
	var b bytes.Buffer
	if err := f.HTML(&b); err != nil {
		t.Fatal(err)
	}
	// XML namespace names are identifiers, never fetched.
	page := b.String()
	for _, ns := range []string{`"http://www.w3.org/2000/svg"`, `"http://www.w3.org/1999/xlink"`} {
		page = strings.ReplaceAll(page, ns, "")
	}
	for _, bad := range []string{"<script", "http://", "https://", "<link", "@import", "url(", "<?xml"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q: it must need nothing at view time", bad)
		}
	}
	if n := strings.Count(page, "<svg"); n != len(f.Plots()) {
		t.Errorf("%d inline SVGs for %d plots", n, len(f.Plots()))
	}
}

// One objective: no front to draw, the objective by trial instead; a CPU
// target counts CPU-hours; the renderers still hold every section.
func TestSingleObjectiveCPUStudy(t *testing.T) {
	src := strings.Replace(fixtureSpace, "[[objectives]]\nmetric = \"mean_tpot_ms\"\ndirection = \"minimize\"\n", "", 1)
	sp, err := space.Parse(context.Background(), "one.toml", src, space.Options{
		Metric: bench.KnownMetric, Profile: func(n string) (bench.Profile, bool) { return bench.Profile{Name: n}, true },
	})
	if err != nil {
		t.Fatal(err)
	}
	sp.Target.GPU = "cpu"
	f := Build(sp, synthTrials(30), fixtureRender, Meta{Version: "test", Now: time.Unix(0, 0)})
	if len(f.Summary.Winners) != 1 || f.Env.Unit != "simulated CPU-hours" {
		t.Fatalf("winners %d, unit %s", len(f.Summary.Winners), f.Env.Unit)
	}
	ids := map[string]bool{}
	for _, p := range f.Plots() {
		ids[p.ID] = true
	}
	if ids["pareto"] || !ids["objective"] || !ids["best-hours-0"] || ids["best-trial-1"] {
		t.Errorf("plots %v", ids)
	}
	var b bytes.Buffer
	if err := f.HTML(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CPU-hours", "best total_tps so far by simulated CPU-hours", "Which knobs mattered"} {
		if !strings.Contains(strings.ToLower(b.String()), strings.ToLower(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A study with no complete trial yet renders without plots or a front.
func TestEmptyStudyRenders(t *testing.T) {
	trials := synthTrials(1)
	trials[0].State, trials[0].Metrics = store.Running, nil
	f := Build(fixtureSpaceOf(t), trials, fixtureRender, Meta{Now: time.Unix(0, 0)})
	if len(f.Plots()) != 0 || f.Importance != nil {
		t.Errorf("plots %v, importance %v for a study without measurements", f.Plots(), f.Importance)
	}
	var b bytes.Buffer
	if err := f.HTML(&b); err != nil {
		t.Fatal(err)
	}
	if err := f.Markdown(&b, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No trial finished with every SLO met yet.") {
		t.Error("the page does not say nothing finished")
	}
}
