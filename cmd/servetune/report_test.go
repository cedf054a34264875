package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// checkReportCommands runs report and best --export on the quickstart
// study in dir (TestQuickstartPrintsFrontWithServingCommands made it).
func checkReportCommands(t *testing.T, dir string) {
	t.Helper()
	code, out, errText := runCLI(t, dir, "report", "quickstart")
	page, err := os.ReadFile(filepath.Join(dir, "quickstart-report.html"))
	if code != 0 || err != nil || !strings.Contains(out, "quickstart-report.html") {
		t.Fatalf("report: exit %d %v\n%s", code, err, errText)
	}
	for _, want := range []string{"<svg", "Profile balanced", "Which knobs mattered", "python3 -m sglang.launch_server", "<details>", "GPU-hours"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	code, _, errText = runCLI(t, dir, "report", "quickstart", "--markdown", "md")
	md, err := os.ReadFile(filepath.Join(dir, "md", "report.md"))
	if code != 0 || err != nil || !strings.Contains(string(md), "![Pareto front") {
		t.Fatalf("report --markdown: exit %d %v\n%s", code, err, errText)
	}
	if _, err := os.Stat(filepath.Join(dir, "md", "pareto.svg")); err != nil {
		t.Errorf("the Markdown's plots are not beside it: %v", err)
	}
	checkQuickstartReport(t, string(md))
	code, _, errText = runCLI(t, dir, "report", "quickstart", "--markdown", "md", "--html", "x.html")
	if code != 2 {
		t.Errorf("--html with --markdown: exit %d %s", code, errText)
	}
	code, out, errText = runCLI(t, dir, "best", "quickstart", "--export", "docker")
	if code != 0 || !strings.Contains(out, "docker run ") || !strings.Contains(out, "lmsysorg/sglang:v0.5.14 -m sglang.launch_server") {
		t.Errorf("best --export docker: exit %d %s\n%s", code, errText, out)
	}
	code, out, errText = runCLI(t, dir, "best", "quickstart", "--export", "k8s", "--trial", "1")
	if code != 0 || !strings.Contains(out, "image: vllm/vllm-openai:v0.18.0") || !strings.Contains(out, "nvidia.com/gpu: 8") {
		t.Errorf("best --export k8s --trial 1: exit %d %s\n%s", code, errText, out)
	}
	if code, _, _ := runCLI(t, dir, "best", "quickstart", "--export", "helm"); code != 2 {
		t.Errorf("--export helm: exit %d, want 2", code)
	}
}

// checkQuickstartReport holds the quickstart's report to what issue 23
// asks: simulated and said so, the prior's sections present, and dp —
// whose slice shows the study's largest split (≈5k vs 15k tok/s on
// average) — not read as ~0 by the importance (5-NN permutation
// importance gave it 2%).
func checkQuickstartReport(t *testing.T, md string) {
	t.Helper()
	for _, want := range []string{"Simulated: every value", "simulated GPU-hours", "## Recommended (simulated)",
		"## The prior's predictions vs the measurements", "| engine = vllm |", "Workload: random, 8K in / 1K out",
		// The winners' neighbourhoods, a neighbour predicted from the
		// prior's file kept in the study's directory.
		"## One knob away (simulated)", "one-knob neighbours measured", "| predicted | predicted "} {
		if !strings.Contains(md, want) {
			t.Errorf("the quickstart's report lacks %q", want)
		}
	}
	// dp is read from the importance table itself. This 20-trial study
	// gives it a few percent (fANOVA; the 60-trial study issue 23
	// measured gave more), so the end-to-end check asks only that dp is
	// attributed a share, not ~0 — how correlated knobs share the
	// variance is held by studies/report/fanova's own tests.
	_, section, _ := strings.Cut(md, "## Which knobs mattered")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| dp ") {
			continue
		}
		cells := strings.Split(line, "|")
		share, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(cells[2]), "%"))
		if err != nil || share < 1 || share > 100 {
			t.Errorf("dp's share of total_tps %q: want a share of 1–100%%", line)
		}
		return
	}
	t.Errorf("the importance table has no dp row:\n%s", section)
}
