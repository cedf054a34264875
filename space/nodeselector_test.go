package space

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// [target.node_selector] gives a GPU type the node labels its pods are
// pinned to; an empty table pins none; the lookup ignores case.
func TestNodeSelectorLoads(t *testing.T) {
	src := fleetSpace(`[target.node_selector.H100]
"cloud.google.com/gke-accelerator" = "nvidia-h100-80gb"
pool = "serving"
[target.node_selector.h200]
`, `["H100", "H200"]`, "p99_ttft_ms")
	sp, err := Parse(context.Background(), filepath.Join(t.TempDir(), "s.toml"), src, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	sel, ok := sp.Target.NodeSelectorOf("h100")
	if !ok || len(sel) != 2 || sel["cloud.google.com/gke-accelerator"] != "nvidia-h100-80gb" || sel["pool"] != "serving" {
		t.Errorf("H100's selector %v %v", sel, ok)
	}
	if sel, ok := sp.Target.NodeSelectorOf("H200"); !ok || len(sel) != 0 {
		t.Errorf("H200's empty table gives %v %v, want none given", sel, ok)
	}
	if _, ok := sp.Target.NodeSelectorOf("L40S"); ok {
		t.Error("a type without a table has a selector")
	}
}

// A node selector Kubernetes would refuse, or one for a GPU type the
// study does not run on, is refused at load at its file, line and key.
func TestNodeSelectorProblems(t *testing.T) {
	cases := []struct{ name, head, gpus, want string }{
		{"unknown type with a hint", "[target.node_selector.H10]\npool = \"a\"\n", `["H100", "H200"]`,
			`s.toml:7: target.node_selector.H10: GPU type "H10" is not one the study runs on; did you mean "H100"? (its types: H100, H200)`},
		{"type other than target.gpu", "[target.node_selector.H200]\npool = \"a\"\n", "",
			`target.node_selector.H200: GPU type "H200" is not one the study runs on`},
		{"not a table", "node_selector = { H100 = \"NVIDIA-H100\" }\n", `["H100"]`,
			`s.toml:7: target.node_selector.H100: must be a table of node labels`},
		{"bad key", "[target.node_selector.H100]\n\"nvidia.com/gpu product\" = \"x\"\n", `["H100"]`,
			`s.toml:8: target.node_selector.H100.nvidia.com/gpu product: is not a Kubernetes label key: its name "gpu product" must be`},
		{"bad prefix", "[target.node_selector.H100]\n\"Nvidia_com/gpu\" = \"x\"\n", `["H100"]`,
			`its prefix "Nvidia_com" must be a DNS subdomain`},
		{"bad value", "[target.node_selector.H100]\n\"nvidia.com/gpu.product\" = \"NVIDIA H100 80GB HBM3\"\n", `["H100"]`,
			`s.toml:8: target.node_selector.H100.nvidia.com/gpu.product: "NVIDIA H100 80GB HBM3" is not a Kubernetes label value`},
		{"number value", "[target.node_selector.H100]\ncount = 8\n", `["H100"]`,
			`target.node_selector.H100.count: must be a string label value, got`},
	}
	for _, c := range cases {
		src := fleetSpace(c.head, c.gpus, "p99_ttft_ms")
		if c.gpus == "" {
			src = strings.Replace(fleetSpace(c.head, `["H100"]`, "p99_ttft_ms"), "[params.gpu]\nvalues = [\"H100\"]\n", "", 1)
		}
		_, err := Parse(context.Background(), filepath.Join(t.TempDir(), "s.toml"), src, testOptions())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}
