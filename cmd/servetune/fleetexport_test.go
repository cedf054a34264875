package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/export"
	"github.com/servetune/servetune/studies/export/k8stest"
	"github.com/servetune/servetune/studies/store"
)

// fleetExportSpace is examples/fleet.toml with traffic_rps, a rate
// search within its TTFT bound, and p99_ttft_ms as a second objective, so
// the front holds several GPU types.
// The seed is one whose 60 trials reach winners on several GPU types
// (what the test needs): 51 did until the vLLM step model's decode
// attention term (issue 45) moved the sampler's path, and its front
// then held H100 trials only, the SGLang H200 ones never visited.
const fleetExportSpace = `
[study]
name = "fleet"
sampler = "motpe"
n_trials = 60
seed = 53

[target]
runner = "sim"
model = "meta-llama/Llama-3.1-70B-Instruct"
gpu = "H100"
gpus = 8
prices = "prices.toml"
traffic_rps = 40

[[objectives]]
metric = "usd_per_mtok_output"
direction = "minimize"

[[objectives]]
metric = "p99_ttft_ms"
direction = "minimize"

[[constraints]]
expr = "p99_ttft_ms <= 2000"

[slo]
ttft_ms = 2000

[profiles]
run = ["chat"]

[profiles.custom.chat]
dataset = "random"
input_len = 1000
output_len = 300
num_prompts = 400
search_rate = { attainment = 0.99, low = 0.5, high = 64 }

[params.gpu]
values = ["H100", "H200", "A100-80GB", "L40S"]

[params.engine]
values = ["vllm", "sglang"]

[params.tp]
values = [2, 4, 8]

[params.max_running]
values = [32, 64, 128]

# FP8 KV cache only where the GPU computes in FP8 (not the A100).
[params.kv_cache_dtype]
values = ["auto", "fp8"]
when = 'gpu != "A100-80GB"'
`

// best --export k8s of a fleet study: one Deployment per GPU type among
// the winners, each running the replicas its trial's study computed for
// traffic_rps on nodes of its GPU type, all decoding strictly.
func TestBestExportK8sOfAFleetStudy(t *testing.T) {
	dir := t.TempDir()
	prices, err := os.ReadFile("../../examples/prices.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prices.toml"), prices, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errText := runCLI(t, dir, "run", writeSpaceIn(t, dir, fleetExportSpace)); code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, errText)
	}
	code, out, errText := runCLI(t, dir, "show", "--json", "fleet")
	var trials []store.Trial
	if err := json.Unmarshal([]byte(out), &trials); code != 0 || err != nil {
		t.Fatalf("show: exit %d %v %s", code, err, errText)
	}
	byNumber := map[int]store.Trial{}
	for _, tr := range trials {
		byNumber[tr.Number] = tr
	}
	// The first winner on each GPU type, in the report's order.
	want := map[string]store.Trial{}
	for _, w := range bestJSON(t, dir, "fleet").Winners {
		tr := byNumber[w.Trial]
		if g := tr.Config.String(space.KnobGPU); want[g].Number == 0 {
			want[g] = tr
		}
	}
	if len(want) < 2 {
		t.Fatalf("the front holds %d GPU type(s); the fixture must give several", len(want))
	}
	code, out, errText = runCLI(t, dir, "best", "fleet", "--export", "k8s")
	objs, err := k8stest.Decode([]byte(out))
	if code != 0 || err != nil || len(objs.Deployments) != len(want) || len(objs.Services) != len(want) {
		t.Fatalf("exit %d %v %s: want %d Deployments and Services\n%s", code, err, errText, len(want), out)
	}
	names := map[string]bool{}
	products := map[string]string{"H100": "NVIDIA-H100-80GB-HBM3", "H200": "NVIDIA-H200", "A100-80GB": "NVIDIA-A100-SXM4-80GB", "L40S": "NVIDIA-L40S"}
	for _, d := range objs.Deployments {
		names[d.Name] = true
		sel := d.Spec.Template.Spec.NodeSelector[export.GPUProductLabel]
		var tr store.Trial
		for g, w := range want {
			if products[g] == sel {
				tr = w
			}
		}
		if tr.Number == 0 || !strings.HasSuffix(d.Name, "-trial-"+strconv.Itoa(tr.Number)) {
			t.Errorf("Deployment %s on %q is not the first winner of a GPU type %v", d.Name, sel, want)
			continue
		}
		replicas := tr.Metrics["chat"]["replicas"]
		if replicas < 2 || *d.Spec.Replicas != int32(replicas) {
			t.Errorf("%s: %d replicas, want trial %d's %v (traffic_rps 40)", d.Name, *d.Spec.Replicas, tr.Number, replicas)
		}
	}
	if len(names) != len(want) {
		t.Errorf("Deployment names %v are not distinct", names)
	}
	if !strings.HasPrefix(out, "# servetune export of study fleet: one Deployment per GPU type") || !strings.Contains(out, "They are alternatives") {
		t.Errorf("the header does not say what the Deployments are:\n%s", out)
	}
}
