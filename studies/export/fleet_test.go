package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/export/k8stest"
	"github.com/servetune/servetune/studies/store"
)

// fleetStudy is examples/fleet.toml's shape with traffic_rps: a rate
// search on chat within a TTFT SLO, the GPU type searched; extra goes at
// the end of [target].
func fleetStudy(t *testing.T, extra string) *space.Space {
	t.Helper()
	dir := t.TempDir()
	prices := "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hour = 2.5\nsource = \"test\"\n\n[[gpu]]\nname = \"L40S\"\nusd_per_gpu_hour = 0.9\nsource = \"test\"\n"
	if err := os.WriteFile(filepath.Join(dir, "prices.toml"), []byte(prices), 0o600); err != nil {
		t.Fatal(err)
	}
	src := `[study]
name = "fleet"
[target]
model = "meta-llama/Llama-3.1-70B-Instruct"
gpu = "H100"
gpus = 8
engine = "vllm"
prices = "prices.toml"
traffic_rps = 40
` + extra + `
[[objectives]]
metric = "usd_per_hour"
direction = "minimize"
[slo]
ttft_ms = 2000
[profiles]
run = ["chat"]
[profiles.custom.chat]
input_len = 1000
output_len = 300
num_prompts = 400
search_rate = { attainment = 0.99, low = 1, high = 64 }
[params.gpu]
values = ["H100", "L40S"]
[params.tp]
values = [2, 4, 8]
`
	sp, err := space.Parse(context.Background(), filepath.Join(dir, "fleet.toml"), src, studies.SpaceOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// fleetTrial is a complete trial on gpu with tp, whose rate search found
// rate req/s and replicas as cost.Fleet counts them.
func fleetTrial(n int, gpu string, tp int64, rate, replicas float64) store.Trial {
	m := map[string]float64{"max_rate_under_slo": rate}
	if replicas > 0 {
		m["replicas"] = replicas
		m["gpus_total"] = replicas * float64(tp)
	}
	return store.Trial{Number: n, State: store.Complete, Config: space.Config{"gpu": gpu, "tp": tp},
		Metrics: map[string]map[string]float64{"chat": m}}
}

func decodeFleet(t *testing.T, deps []Deployment) (string, k8stest.Objects) {
	t.Helper()
	y, err := KubernetesOf(deps)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := k8stest.Decode(y)
	if err != nil {
		t.Fatalf("manifest is not valid Kubernetes: %v\n%s", err, y)
	}
	return string(y), objs
}

// A fleet study's export runs the replicas the study computed for
// traffic_rps, pinned to the trial's GPU type by GFD's product label,
// and says where both came from.
func TestFleetExportRunsTheReplicasOnTheTrialsGPUType(t *testing.T) {
	sp := fleetStudy(t, "")
	trials := []store.Trial{fleetTrial(3, "H100", 4, 14.25, 3)}
	deps, err := ByGPUType(sp, trials, []int{3}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	y, objs := decodeFleet(t, deps)
	if len(objs.Deployments) != 1 {
		t.Fatalf("%d Deployments, want 1\n%s", len(objs.Deployments), y)
	}
	d := objs.Deployments[0]
	if *d.Spec.Replicas != 3 {
		t.Errorf("replicas %d, want the trial's 3", *d.Spec.Replicas)
	}
	if got := d.Spec.Template.Spec.NodeSelector; len(got) != 1 || got[GPUProductLabel] != "NVIDIA-H100-80GB-HBM3" {
		t.Errorf("node selector %v, want %s=NVIDIA-H100-80GB-HBM3", got, GPUProductLabel)
	}
	checkGPUs(t, d.Spec.Template.Spec.Containers[0], 4)
	why := "3 replicas serve traffic_rps 40: one sustained 14.25 req/s on profile chat within ttft_ms <= 2000 for 99% of requests, and ceil(40 / 14.25) = 3 (simulated)"
	head, _, _ := strings.Cut(y, "\n---")
	if !strings.HasPrefix(y, "# servetune export of study fleet, trial 3 on H100.\n") || !strings.Contains(head, "# "+why+".\n") {
		t.Errorf("header does not say where the replicas came from (%q):\n%s", why, y)
	}
	if !strings.Contains(y, "# fleet-trial-3: "+why+".\n# fleet-trial-3: H100 nodes: nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3") {
		t.Errorf("the Deployment's comment does not say where its replicas and selector came from:\n%s", y)
	}
}

// Without traffic_rps, or a trial without a replicas metric, the
// Deployment keeps 1 replica and says why.
func TestFleetExportKeepsOneReplicaAndSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name string
		sp   *space.Space
		want string
	}{
		{"no traffic_rps", study("vllm", 8, nil), "1 replica: the study sets no [target] traffic_rps"},
		{"no replicas metric", fleetStudy(t, ""), "1 replica: trial 3 has no replicas metric for traffic_rps 40"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := fleetTrial(3, "H100", 2, 0, 0)
			if tc.sp.Params == nil {
				tr.Config = space.Config{"tp": int64(2)}
			}
			deps, err := ByGPUType(tc.sp, []store.Trial{tr}, []int{3}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			y, objs := decodeFleet(t, deps)
			if *objs.Deployments[0].Spec.Replicas != 1 || !strings.Contains(y, "# "+tc.want) {
				t.Errorf("replicas %d, want 1 and the comment %q:\n%s", *objs.Deployments[0].Spec.Replicas, tc.want, y)
			}
		})
	}
}

// Winners on two GPU types export two Deployments (the first winner on
// each type), each with its own name, replicas and selector, decoding
// strictly; the header says they are alternatives, not a split fleet.
func TestFleetExportHasOneDeploymentPerGPUType(t *testing.T) {
	sp := fleetStudy(t, "")
	trials := []store.Trial{
		fleetTrial(3, "H100", 4, 14.25, 3),
		fleetTrial(5, "NVIDIA H100 80GB HBM3", 8, 30, 2), // the same type by its alias: not exported
		fleetTrial(8, "L40S", 2, 4.5, 9),
	}
	deps, err := ByGPUType(sp, trials, []int{3, 5, 8}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	y, objs := decodeFleet(t, deps)
	if len(objs.Deployments) != 2 || len(objs.Services) != 2 || len(objs.Claims) != 1 {
		t.Fatalf("want 2 Deployments and Services sharing 1 cache claim, got %d, %d, %d:\n%s", len(objs.Deployments), len(objs.Services), len(objs.Claims), y)
	}
	want := []struct {
		name     string
		replicas int32
		product  string
	}{{"fleet-trial-3", 3, "NVIDIA-H100-80GB-HBM3"}, {"fleet-trial-8", 9, "NVIDIA-L40S"}}
	for i, w := range want {
		d := objs.Deployments[i]
		if d.Name != w.name || *d.Spec.Replicas != w.replicas || d.Spec.Template.Spec.NodeSelector[GPUProductLabel] != w.product {
			t.Errorf("deployment %d: %s, %d replicas on %v; want %s, %d on %s", i, d.Name, *d.Spec.Replicas, d.Spec.Template.Spec.NodeSelector, w.name, w.replicas, w.product)
		}
		if objs.Services[i].Spec.Selector["app"] != w.name {
			t.Errorf("service %d selects %v, want %s", i, objs.Services[i].Spec.Selector, w.name)
		}
	}
	if _, err := KubernetesOf(nil); err == nil {
		t.Error("a manifest of no deployment was written")
	}
	for _, s := range []string{"one Deployment per GPU type among its best trials", "trial 3 on H100, trial 8 on L40S", "They are alternatives, each sized alone for traffic_rps 40", "does not model a fleet that splits the traffic"} {
		if !strings.Contains(y, s) {
			t.Errorf("header lacks %q:\n%s", s, y)
		}
	}
}

// [target.node_selector] replaces GFD's label for its GPU type; an empty
// table pins none; the other types keep the default.
func TestFleetExportTakesTheTargetsNodeSelector(t *testing.T) {
	sp := fleetStudy(t, `[target.node_selector.h100]
"cloud.google.com/gke-accelerator" = "nvidia-h100-80gb"
[target.node_selector.L40S]
`)
	trials := []store.Trial{fleetTrial(3, "H100", 4, 14.25, 3), fleetTrial(8, "L40S", 2, 4.5, 9)}
	deps, err := ByGPUType(sp, trials, []int{3, 8}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	y, objs := decodeFleet(t, deps)
	if sel := objs.Deployments[0].Spec.Template.Spec.NodeSelector; len(sel) != 1 || sel["cloud.google.com/gke-accelerator"] != "nvidia-h100-80gb" {
		t.Errorf("H100 selector %v, want the target's", sel)
	}
	if sel := objs.Deployments[1].Spec.Template.Spec.NodeSelector; len(sel) != 0 {
		t.Errorf("L40S selector %v, want none (its table is empty)", sel)
	}
	for _, s := range []string{"H100 nodes: cloud.google.com/gke-accelerator=nvidia-h100-80gb, from [target.node_selector.H100]", "no node selector: [target.node_selector.L40S] gives none"} {
		if !strings.Contains(y, s) {
			t.Errorf("the export does not say %q:\n%s", s, y)
		}
	}
}

// Every built-in GPU card, by its name or any alias, maps to the value
// GFD labels its nodes with; a product name maps as GFD sanitises it; an
// unknown type maps to none.
func TestGPUProductOfEveryBuiltInGPU(t *testing.T) {
	want := map[string]string{
		"H100": "NVIDIA-H100-80GB-HBM3", "H200": "NVIDIA-H200", "A100-80GB": "NVIDIA-A100-SXM4-80GB",
		"L40S": "NVIDIA-L40S", "B200": "NVIDIA-B200",
	}
	cards := sim.DefaultCards()
	for _, g := range cards.GPUs {
		w, ok := want[g.Name]
		if !ok {
			t.Errorf("built-in GPU card %s has no expected GFD value here: add it to gfdProducts and this table", g.Name)
			continue
		}
		for _, n := range append([]string{g.Name, strings.ToLower(g.Name)}, g.Aliases...) {
			if got, ok := GPUProduct(n, cards); !ok || got != w {
				t.Errorf("GPUProduct(%q) = %q %v, want %q", n, got, ok, w)
			}
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"NVIDIA H100 PCIe", "NVIDIA-H100-PCIe"},
		{"NVIDIA A10G", "NVIDIA-A10G"},
	} {
		if got, ok := GPUProduct(tc.in, nil); !ok || got != tc.want {
			t.Errorf("GPUProduct(%q) = %q %v, want %q", tc.in, got, ok, tc.want)
		}
	}
	for _, in := range []string{"MI300X", "", "NVIDIA " + strings.Repeat("x", 70)} {
		if got, ok := GPUProduct(in, nil); ok {
			t.Errorf("GPUProduct(%q) = %q, want none", in, got)
		}
	}
}

// A GPU type servetune cannot name GFD's value for gets no selector, and
// the export says how to give one.
func TestFleetExportOfAnUnknownGPUTypeSaysHowToPinIt(t *testing.T) {
	sel, why := selectorOf(space.Target{GPU: "MI300X"}, Options{}, "MI300X")
	if sel != nil || !strings.Contains(why, "[target.node_selector.MI300X]") {
		t.Errorf("selector %v, why %q", sel, why)
	}
}

// --node-selector (Options.NodeSelector) wins over [target.node_selector]
// and the default for the types it names; bad values are refused naming
// the value.
func TestNodeSelectorFlagOverridesTheSpace(t *testing.T) {
	sp := fleetStudy(t, "[target.node_selector.H100]\npool = \"from-space\"\n")
	sel, err := ParseNodeSelectors(sp, []string{"h100:pool=from-flag", "H100:zone=a", "L40S:"})
	if err != nil {
		t.Fatal(err)
	}
	trials := []store.Trial{fleetTrial(3, "H100", 4, 14.25, 3), fleetTrial(8, "L40S", 2, 4.5, 9)}
	deps, err := ByGPUType(sp, trials, []int{3, 8}, Options{NodeSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	y, objs := decodeFleet(t, deps)
	if got := objs.Deployments[0].Spec.Template.Spec.NodeSelector; len(got) != 2 || got["pool"] != "from-flag" || got["zone"] != "a" {
		t.Errorf("H100 selector %v, want the flag's", got)
	}
	if got := objs.Deployments[1].Spec.Template.Spec.NodeSelector; len(got) != 0 {
		t.Errorf("L40S selector %v, want none (L40S:)", got)
	}
	for _, s := range []string{"H100 nodes: pool=from-flag, zone=a, from --node-selector H100", "no node selector: --node-selector L40S gives none"} {
		if !strings.Contains(y, s) {
			t.Errorf("the export does not say %q:\n%s", s, y)
		}
	}
	for _, tc := range []struct{ arg, want string }{
		{"H10:a=b", `GPU type "H10" is not one study fleet runs on; did you mean "H100"?`},
		{"pool=a", "give GPU:KEY=VALUE"},
		{":pool=a", "give GPU:KEY=VALUE"},
		{"H100:pool", "the label must be KEY=VALUE"},
		{"H100:pool=a b", `"a b" is not a Kubernetes label value`},
		{"H100:/x=a", `"/x" is not a Kubernetes label key`},
	} {
		if _, err := ParseNodeSelectors(sp, []string{tc.arg}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.arg, err, tc.want)
		}
	}
	if _, err := ParseNodeSelectors(sp, []string{"H100:pool=a", "H100:pool=b"}); err == nil || !strings.Contains(err.Error(), "also given") {
		t.Errorf("a label given twice: %v", err)
	}
}

// A study that owns H100 and simulates L40S exports both, and its header
// says which Deployment is sized from simulated numbers.
func TestFleetExportNamesDeploymentsSizedFromSimulatedNumbers(t *testing.T) {
	sp := fleetStudy(t, "runner = \"process\"\nsimulated_gpus = [\"L40S\"]")
	measured, simulated := fleetTrial(3, "H100", 4, 14.25, 3), fleetTrial(8, "L40S", 2, 4.5, 9)
	measured.Runner, simulated.Runner = "process", "sim"
	deps, err := ByGPUType(sp, []store.Trial{measured, simulated}, []int{3, 8}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	y, _ := decodeFleet(t, deps)
	if !strings.Contains(y, "# trial 8: sized from simulated numbers: no trial ran on L40S (target.simulated_gpus), so measure it before applying.") {
		t.Errorf("the header does not name the simulated Deployment:\n%s", y)
	}
	if strings.Contains(y, "trial 3: sized from simulated") {
		t.Errorf("the measured Deployment is called simulated:\n%s", y)
	}
	one, err := ByGPUType(sp, []store.Trial{simulated}, []int{8}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if y, _ := decodeFleet(t, one); !strings.Contains(y, "# sized from simulated numbers: no trial ran on L40S") {
		t.Errorf("one simulated Deployment's header:\n%s", y)
	}
}
