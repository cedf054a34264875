package launch

import "strings"

// gpuWatch says which GPU processes an engine's teardown waits for. Trials
// packed side by side share a node, so a teardown must not wait for its
// neighbours' engines: with devices known it waits only for processes on
// the engine's own GPUs; when a device cannot be matched to nvidia-smi's
// list (a MIG instance, a failed device query) only for the engine's own
// processes; with no devices (the engine sees every GPU) for every
// process that appeared since the launch, as one trial at a time allows.
type gpuWatch struct {
	devices []string     // CUDA_VISIBLE_DEVICES servetune gave the engine
	before  map[int]bool // GPU users before the launch: not the engine's
	tree    map[int]bool // the engine's processes just before teardown
}

// left lists the PIDs in u the teardown still waits for, once each.
func (w gpuWatch) left(u GPUUsage) []int {
	uuids, known := u.uuidsOf(w.devices)
	seen := map[int]bool{}
	var out []int
	for _, a := range u.Apps {
		if !w.before[a.PID] && !seen[a.PID] && w.mine(a, uuids, known) {
			seen[a.PID] = true
			out = append(out, a.PID)
		}
	}
	return out
}

// mine says whether a is the engine's: on its devices when both the
// devices and a's GPU are known, else one of its processes.
func (w gpuWatch) mine(a GPUApp, uuids map[string]bool, known bool) bool {
	switch {
	case len(w.devices) == 0:
		return true
	case known && a.GPU != "":
		return uuids[a.GPU]
	}
	return w.tree[a.PID]
}

// uuidsOf resolves devices, given as nvidia-smi indices or GPU UUIDs, to
// UUIDs; ok is false when one of them cannot be resolved. CUDA numbers
// devices fastest first and nvidia-smi by PCI bus, which agree on the
// identical GPUs of one node; CUDA_DEVICE_ORDER=PCI_BUS_ID or UUIDs in
// --gpus make them agree everywhere.
func (u GPUUsage) uuidsOf(devices []string) (map[string]bool, bool) {
	out := map[string]bool{}
	for _, d := range devices {
		switch {
		case strings.HasPrefix(d, "GPU-"):
			out[d] = true
		case u.GPUs[d] != "":
			out[u.GPUs[d]] = true
		default:
			return nil, false
		}
	}
	return out, true
}

// pidSet is the set of PIDs a usage lists.
func (u GPUUsage) pidSet() map[int]bool {
	out := make(map[int]bool, len(u.Apps))
	for _, a := range u.Apps {
		out[a.PID] = true
	}
	return out
}

// visibleDevices reads a CUDA_VISIBLE_DEVICES value.
func visibleDevices(v string) []string {
	var out []string
	for _, d := range strings.Split(v, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// engineTree is the engine's processes: its group and every descendant of
// its leader (a worker that called setsid has left the group).
func engineTree(pgid int) map[int]bool {
	out := map[int]bool{pgid: true}
	for _, pid := range sweepTargets(readProcs(), pgid, pgid, false) {
		out[pid] = true
	}
	return out
}
