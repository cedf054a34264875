package studies

import (
	"fmt"
	"slices"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// ranCommand is the command a trial's engine really ran, when it differs
// from the canonical command a report recommends (its first line; the
// rest lists generated files): both reproduce the trial, the first on
// this machine.
func ranCommand(t store.Trial, canonical string) string {
	if t.Ran == nil {
		return ""
	}
	ran := t.Ran.Shell()
	first, _, _ := strings.Cut(canonical, "\n")
	if ran == first {
		return ""
	}
	return ran
}

// environments lists each distinct environment the study's trials ran in
// with the trials that ran in it ("trials 1-3, 5: vllm 0.11.0; 8×H100 …"):
// one line for a study that never drifted.
func environments(trials []store.Trial) []string {
	var order []string
	runs := map[string][]int{}
	for _, t := range trials {
		if t.Fingerprint == nil {
			continue
		}
		s := t.Fingerprint.String()
		if _, seen := runs[s]; !seen {
			order = append(order, s)
		}
		runs[s] = append(runs[s], t.Number)
	}
	out := make([]string, len(order))
	for i, s := range order {
		out[i] = fmt.Sprintf("%s: %s", trialList(runs[s]), s)
	}
	return out
}

// trialList is "trial 4" or "trials 1-3, 5".
func trialList(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(ns[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		}
		i = j + 1
	}
	if len(ns) == 1 {
		return "trial " + parts[0]
	}
	return "trials " + strings.Join(parts, ", ")
}

// device is what the study ran on: "cpu" or "gpu". A trial's recorded
// environment decides; without one, the target's declaration does.
func device(sp *space.Space, trials []store.Trial) string {
	if strings.EqualFold(sp.Target.GPU, "cpu") {
		return "cpu"
	}
	for _, tr := range trials {
		if tr.Fingerprint != nil {
			return tr.Fingerprint.Device
		}
	}
	return TargetDevice(sp.Target, sp.Engines())
}

// TargetDevice is what a target runs on by its declaration alone: "cpu"
// when it names no GPU (gpus = 0, gpu = "cpu", or no GPU named and only
// Ollama, which then runs on the CPU), "gpu" otherwise.
func TargetDevice(t space.Target, engines []string) string {
	if t.GPUs == 0 || strings.EqualFold(t.GPU, "cpu") {
		return "cpu"
	}
	if t.GPU == "" && len(engines) > 0 && !slices.ContainsFunc(engines, needsGPU(t)) {
		return "cpu"
	}
	return "gpu"
}

// needsGPU reports whether an engine of t does not run on the CPU when the
// target names no GPU (the registry's Device; an unknown engine needs one).
func needsGPU(t space.Target) func(string) bool {
	return func(name string) bool {
		e, ok := engines.Lookup(name, t)
		return !ok || e.Device() != engines.CPU
	}
}

// HoursUnit names device time on a device: GPU-hours or CPU-hours.
func HoursUnit(device string) string {
	if device == "cpu" {
		return "CPU-hours"
	}
	return "GPU-hours"
}

// Devices names what the study ran on for its header: "8×H100", or the
// CPU ("CPU", or its model when a trial recorded it).
func (r Report) Devices() string {
	if r.Device != "cpu" {
		return fmt.Sprintf("%d×%s", r.GPUs, r.GPU)
	}
	if r.CPU != "" {
		return r.CPU
	}
	return "CPU"
}

// HoursUnit names device time for what it is.
// Simulated device time says so ("simulated GPU-hours"); in a study
// that simulates some GPU types beside the measured one, the hours are
// the measured trials' alone (a simulated trial is charged none).
func (r Report) HoursUnit() string {
	if r.separates() {
		return HoursUnit(r.Device) + " (measured trials only)"
	}
	if r.Simulated {
		return "simulated " + HoursUnit(r.Device)
	}
	return HoursUnit(r.Device)
}
