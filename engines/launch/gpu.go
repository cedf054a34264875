package launch

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
)

// GPUUsage is what nvidia-smi says about the node: its GPUs and the
// processes holding memory on them.
type GPUUsage struct {
	// GPUs maps each device's index, as nvidia-smi numbers it, to its
	// UUID; nil when the devices could not be listed.
	GPUs map[string]string
	// Apps holds one entry per process and GPU it holds memory on.
	Apps []GPUApp
}

// GPUApp is a process holding memory on one GPU.
type GPUApp struct {
	PID int
	// GPU is the device's UUID (GPU-…); empty when nvidia-smi did not say.
	GPU string
}

// nvidiaSMIUsage asks nvidia-smi which processes hold memory on which
// GPU, or says ok=false when nvidia-smi is absent (no GPUs, or a
// CPU-only test machine). A device list that cannot be read leaves GPUs
// nil: teardowns then fall back on the engine's own processes.
func nvidiaSMIUsage(ctx context.Context) (GPUUsage, bool, error) {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return GPUUsage{}, false, nil
	}
	out, err := exec.CommandContext(ctx, path, "--query-compute-apps=pid,gpu_uuid", "--format=csv,noheader").Output()
	if err != nil {
		return GPUUsage{}, true, err
	}
	u := GPUUsage{Apps: parseComputeApps(string(out))}
	if out, err := exec.CommandContext(ctx, path, "--query-gpu=index,uuid", "--format=csv,noheader").Output(); err == nil {
		u.GPUs = parseGPUList(string(out))
	}
	return u, true, nil
}

// parseComputeApps reads `--query-compute-apps=pid,gpu_uuid` lines
// ("1234, GPU-…"). Lines without a PID ("[N/A]", "[Insufficient
// Permissions]", a notice) are skipped: they name no process to wait for.
func parseComputeApps(s string) []GPUApp {
	var out []GPUApp
	for _, line := range strings.Split(s, "\n") {
		f := strings.Split(line, ",")
		n, err := strconv.Atoi(strings.TrimSpace(f[0]))
		if err != nil || n <= 0 {
			continue
		}
		a := GPUApp{PID: n}
		if len(f) > 1 {
			a.GPU = strings.TrimSpace(f[1])
		}
		out = append(out, a)
	}
	return out
}

// parseGPUList reads `--query-gpu=index,uuid` lines ("0, GPU-…").
func parseGPUList(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Split(line, ",")
		if len(f) < 2 {
			continue
		}
		idx, uuid := strings.TrimSpace(f[0]), strings.TrimSpace(f[1])
		if _, err := strconv.Atoi(idx); err != nil || !strings.HasPrefix(uuid, "GPU-") {
			continue
		}
		out[idx] = uuid
	}
	return out
}
