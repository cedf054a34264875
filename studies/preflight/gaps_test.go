package preflight

import (
	"context"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// cpuSpace is a process study of a declared CPU-only engine
// (llama-server built without CUDA): no GPU named, the default count.
func cpuSpace(device string) *space.Space {
	sp := simSpace("process")
	sp.Target.Engine, sp.Target.GPU, sp.Target.GPUs = "llama", "", 1
	sp.Target.Model = "/models/qwen"
	sp.Target.Declared = map[string]space.EngineDecl{"llama": {Command: []string{"llama-server"}, DefaultPort: 8080, Device: device,
		Knobs: map[string]space.KnobDecl{"max_running": {Flag: "--parallel"}}}}
	sp.Params = []space.Param{{Name: "max_running", Kind: space.Int, Low: 1, High: 8}}
	sp.Baseline = space.Config{"max_running": int64(4)}
	return sp
}

// A declared engine that runs on the CPU passes a node without
// nvidia-smi: no GPU is checked; one declared without device still needs
// its GPU (issue 50 item 6).
func TestCPUOnlyDeclaredEngineNeedsNoGPU(t *testing.T) {
	for _, tc := range []struct {
		device   string
		gpuCheck bool
	}{{"cpu", false}, {"", true}} {
		sp := cpuSpace(tc.device)
		f := fake{programs: map[string]string{"llama-server": "/usr/bin/llama-server"}, files: map[string]bool{"/models/qwen": true}}
		in := Input{Space: sp, Storage: func(context.Context) (string, error) { return "db", nil }, Cards: sim.DefaultCards(), Render: render(sp)}
		r, err := Run(context.Background(), in, f.world())
		if err != nil {
			t.Fatal(err)
		}
		var gpus *Check
		for i, c := range r.Checks {
			if c.Name == "gpus" {
				gpus = &r.Checks[i]
			}
		}
		if (gpus != nil) != tc.gpuCheck {
			t.Errorf("device %q: gpus check %+v, want one: %v", tc.device, gpus, tc.gpuCheck)
		}
		if tc.gpuCheck && (gpus.Status != Fail || !strings.Contains(gpus.Detail, "nvidia-smi is not installed")) {
			t.Errorf("device %q: a GPU engine on a node without nvidia-smi: %+v", tc.device, gpus)
		}
		if !tc.gpuCheck && r.Failed() {
			t.Errorf("device %q: a check failed: %+v", tc.device, r.Checks)
		}
	}
}

// A local checkpoint with a config.json and no card is offered
// servetune card; one without a config.json, or a hub id, is not.
func TestNoCardOffersServetuneCard(t *testing.T) {
	for _, tc := range []struct {
		files map[string]bool
		offer bool
	}{
		{map[string]bool{"/models/qwen": true, "/models/qwen/config.json": false}, true},
		{map[string]bool{"/models/qwen": true}, false},
	} {
		sp := cpuSpace("cpu")
		sp.Target.GPU = "H100"
		f := fake{programs: map[string]string{"llama-server": "/usr/bin/llama-server"}, files: tc.files}
		in := Input{Space: sp, Storage: func(context.Context) (string, error) { return "db", nil }, Cards: sim.DefaultCards(), Render: render(sp)}
		r, err := Run(context.Background(), in, f.world())
		if err != nil {
			t.Fatal(err)
		}
		const hint = "make one from its config.json: servetune card /models/qwen"
		if !strings.Contains(r.NoEstimate, `no card for model "/models/qwen"`) || strings.Contains(r.NoEstimate, hint) != tc.offer {
			t.Errorf("files %v: why %q, want the offer: %v", tc.files, r.NoEstimate, tc.offer)
		}
	}
}

// The study check's wording says whose failure it is: a simulated
// study's own, or the real study's, found by simulating it.
func TestStudyFailureWording(t *testing.T) {
	for runner, want := range map[string]string{"sim": "simulated study: ", "process": "the study would stop (found by simulating it for the estimate): "} {
		if got := studyFailure(simSpace(runner)); got != want {
			t.Errorf("runner %s: %q, want %q", runner, got, want)
		}
	}
}
