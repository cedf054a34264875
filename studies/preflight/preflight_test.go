package preflight

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/studydir"
)

func simSpace(runner string) *space.Space {
	return &space.Space{
		Study:      space.Study{Name: "night", NTrials: 6, Seed: 3, Sampler: "random"},
		Target:     space.Target{Runner: runner, Engine: "vllm", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 8},
		Objectives: []space.Objective{{Metric: "total_tps", Direction: space.Maximize}},
		Profiles:   []bench.Profile{{Name: "chat", Dataset: "random", InputLen: 1024, OutputLen: 128, NumPrompts: 100, RequestRate: 8}},
		Params: []space.Param{{Name: "tp", Kind: space.Categorical, Values: []any{int64(1), int64(2), int64(4)}},
			{Name: "max_running", Kind: space.Int, Low: 8, High: 512}},
		Baseline: space.Config{"tp": int64(1)},
	}
}

func render(sp *space.Space) func(space.Config) (string, error) {
	return func(c space.Config) (string, error) {
		cmd, err := engines.Render(sp.WithTargetEngine(c), sp.Target)
		return cmd.Shell(), err
	}
}

// A real-engine study is estimated on the simulator: the baseline comes
// first with the real command, the estimate counts every trial, and
// nothing is left in the storage or the temporary directory.
func TestRunEstimatesTheStudyAndWritesNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := t.TempDir()
	sp := simSpace("process")
	f := fake{programs: map[string]string{"vllm": "/bin/vllm"}, versions: map[string]string{"vllm": "0.15.1"},
		smi: map[string]string{smiGPUs: freeGPUs(8)}, env: map[string]string{"HOME": "/h"}}
	in := Input{Space: sp, Storage: Local(studydir.Of(root, "night"), System()), Cards: sim.DefaultCards(), Render: render(sp)}
	r, err := Run(context.Background(), in, f.world())
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed() {
		t.Errorf("a check failed: %+v", r.Checks)
	}
	if r.Estimate == nil || r.Estimate.Trials != 6 || r.Estimate.Duration <= 0 || r.Estimate.DeviceHours <= 0 || r.Estimate.Unit != "GPU-hours" {
		t.Fatalf("estimate %+v (%s)", r.Estimate, r.NoEstimate)
	}
	if len(r.Commands) != 4 || r.Commands[0].Origin != "baseline" || r.Commands[0].Command != "vllm serve Qwen/Qwen3-8B --tensor-parallel-size=1" {
		t.Errorf("commands %+v", r.Commands)
	}
	for _, dir := range []string{tmp, root} {
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s holds %v after a dry run", dir, entries)
		}
	}
	var out strings.Builder
	if err := r.Text(&out); err != nil || !strings.Contains(out.String(), "Simulated estimate: 6 trials in") || !strings.Contains(out.String(), "Every check passed") {
		t.Errorf("text:\n%s", out.String())
	}
}

// Without cards there is no estimate, and the commands known without
// the simulator are still shown; a failed check fails the report.
func TestRunWithoutCardsAndWithAFailure(t *testing.T) {
	sp := simSpace("process")
	sp.Target.Model = "org/unknown-model"
	in := Input{Space: sp, Storage: func(context.Context) (string, error) { return "db", nil }, Cards: sim.DefaultCards(), Render: render(sp)}
	r, err := Run(context.Background(), in, fake{smi: map[string]string{smiGPUs: freeGPUs(8)}}.world())
	if err != nil {
		t.Fatal(err)
	}
	if r.Estimate != nil || !strings.Contains(r.NoEstimate, `no card for model "org/unknown-model"`) {
		t.Errorf("estimate %+v, why %q", r.Estimate, r.NoEstimate)
	}
	if len(r.Commands) != 1 || r.Commands[0].Origin != "baseline" {
		t.Errorf("commands %+v", r.Commands)
	}
	if !r.Failed() {
		t.Errorf("vllm is not installed, yet nothing failed: %+v", r.Checks)
	}
	var out strings.Builder
	_ = r.Text(&out)
	if !strings.Contains(out.String(), "FAIL  engine vllm") || !strings.Contains(out.String(), "A check failed") {
		t.Errorf("text:\n%s", out.String())
	}
}

// A simulated study launches nothing: only its storage is checked.
func TestASimulatedStudyChecksOnlyItsStorage(t *testing.T) {
	sp := simSpace("sim")
	in := Input{Space: sp, Storage: func(context.Context) (string, error) { return "db", nil }, Cards: sim.DefaultCards(), Render: render(sp)}
	r, err := Run(context.Background(), in, fake{}.world())
	if err != nil || r.Failed() || len(r.Checks) != 2 || r.Estimate == nil {
		t.Errorf("%v %+v", err, r)
	}
}

// A study that owns H100 and simulates H200 is estimated with the H200
// trials' GPU time left out: the real run charges them none.
func TestEstimateLeavesSimulatedGPUTypesOutOfTheHours(t *testing.T) {
	sp := simSpace("process")
	sp.Params = append(sp.Params, space.Param{Name: space.KnobGPU, Kind: space.Categorical, Values: []any{"H100", "H200"}})
	estimate := func(simulated []string) *Estimate {
		s := *sp
		s.Target.SimulatedGPUs = simulated
		f := fake{programs: map[string]string{"vllm": "/bin/vllm"}, versions: map[string]string{"vllm": "0.15.1"},
			smi: map[string]string{smiGPUs: freeGPUs(8)}, env: map[string]string{"HOME": "/h"}}
		in := Input{Space: &s, Storage: Local(studydir.Of(t.TempDir(), "night"), System()), Cards: sim.DefaultCards(), Render: render(&s)}
		r, err := Run(context.Background(), in, f.world())
		if err != nil || r.Estimate == nil {
			t.Fatalf("%v, %s", err, r.NoEstimate)
		}
		return r.Estimate
	}
	all, owned := estimate(nil), estimate([]string{"H200"})
	if all.Trials != owned.Trials || !(owned.DeviceHours > 0 && owned.DeviceHours < all.DeviceHours) {
		t.Errorf("every type measured: %d trials, %.3f h; H200 simulated: %d trials, %.3f h", all.Trials, all.DeviceHours, owned.Trials, owned.DeviceHours)
	}
}
