package launch

import (
	"fmt"
	"strings"
	"testing"
)

// A node of four GPUs as nvidia-smi lists them.
const smiGPUs = "0, GPU-aaaa\n1, GPU-bbbb\n2, GPU-cccc\n3, GPU-dddd\n"

func TestGPUWatchWaitsOnlyForTheEnginesOwnGPUs(t *testing.T) {
	gpus := parseGPUList(smiGPUs)
	// 10 was there before the launch; 20 and 21 are our engine's workers
	// on GPUs 0 and 1; 30 is a neighbour's engine on GPU 2; 40 reports no
	// GPU; 20 appears once per GPU it holds.
	apps := parseComputeApps("10, GPU-aaaa\n20, GPU-aaaa\n21, GPU-bbbb\n20, GPU-bbbb\n30, GPU-cccc\n40, \n")
	ours := map[int]bool{20: true, 21: true, 40: true}
	for _, c := range []struct {
		name    string
		devices []string
		gpus    map[string]string
		want    string
		tree    map[int]bool // the engine's processes; ours unless set
	}{
		{"no devices: every new process, as one trial at a time", nil, gpus, "[20 21 30 40]", nil},
		{"indices: the engine's GPUs only, unplaced ones by ancestry", []string{"0", "1"}, gpus, "[20 21 40]", nil},
		{"UUIDs need no device list", []string{"GPU-aaaa", "GPU-bbbb"}, nil, "[20 21 40]", nil},
		{"the neighbour's teardown waits for its engine, not ours", []string{"2"}, gpus, "[30]", map[int]bool{30: true}},
		{"indices without a device list: the engine's processes", []string{"0", "1"}, nil, "[20 21 40]", nil},
		{"a MIG instance: the engine's processes", []string{"MIG-1234"}, gpus, "[20 21 40]", nil},
		{"an index nvidia-smi does not list: the engine's processes", []string{"7"}, gpus, "[20 21 40]", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree := c.tree
			if tree == nil {
				tree = ours
			}
			w := gpuWatch{devices: c.devices, before: map[int]bool{10: true}, tree: tree}
			if got := fmt.Sprint(w.left(GPUUsage{GPUs: c.gpus, Apps: apps})); got != c.want {
				t.Errorf("left = %s, want %s", got, c.want)
			}
		})
	}
}

// A neighbour on a MIG node is left alone when it is not in the tree.
func TestGPUWatchFallbackIgnoresOtherEngines(t *testing.T) {
	w := gpuWatch{devices: []string{"MIG-1"}, tree: map[int]bool{5: true}}
	got := w.left(GPUUsage{Apps: []GPUApp{{PID: 5, GPU: "GPU-a"}, {PID: 6, GPU: "GPU-a"}}})
	if fmt.Sprint(got) != "[5]" {
		t.Errorf("left = %v, want only the engine's own process 5", got)
	}
}

func TestParseNvidiaSMI(t *testing.T) {
	apps := parseComputeApps("1234, GPU-5f3c\n[N/A], GPU-1\nNo running processes found\n\n 77 ,GPU-9 \n-3, GPU-2\n")
	if fmt.Sprint(apps) != "[{1234 GPU-5f3c} {77 GPU-9}]" {
		t.Errorf("parseComputeApps = %v", apps)
	}
	gpus := parseGPUList("0, GPU-a\nx, GPU-b\n1, nope\n2,GPU-c\n")
	if fmt.Sprint(gpus) != "map[0:GPU-a 2:GPU-c]" {
		t.Errorf("parseGPUList = %v", gpus)
	}
	if got := visibleDevices(" 0, 3,,GPU-x "); fmt.Sprint(got) != "[0 3 GPU-x]" {
		t.Errorf("visibleDevices = %v", got)
	}
}

// FuzzParseNvidiaSMI: whatever nvidia-smi prints, the parsers keep only
// positive PIDs and index → GPU UUID pairs, and a usage built from them
// never makes a teardown wait for a process it did not list.
func FuzzParseNvidiaSMI(f *testing.F) {
	f.Add("1234, GPU-5f3c\n", smiGPUs, "0,1")
	f.Add("[N/A], [N/A]\n", "0, GPU-a\n", "MIG-1")
	f.Add("No running processes found", "", "")
	f.Fuzz(func(t *testing.T, apps, gpus, devices string) {
		u := GPUUsage{Apps: parseComputeApps(apps), GPUs: parseGPUList(gpus)}
		for _, a := range u.Apps {
			if a.PID <= 0 || strings.ContainsAny(a.GPU, "\n,") {
				t.Fatalf("parsed app %+v", a)
			}
		}
		for idx, uuid := range u.GPUs {
			if !strings.HasPrefix(uuid, "GPU-") || strings.ContainsAny(idx+uuid, "\n,") {
				t.Fatalf("parsed GPU %q → %q", idx, uuid)
			}
		}
		listed := u.pidSet()
		for _, pid := range (gpuWatch{devices: visibleDevices(devices)}).left(u) {
			if !listed[pid] {
				t.Fatalf("waits for %d, which nvidia-smi did not list", pid)
			}
		}
	})
}
