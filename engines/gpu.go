package engines

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
)

// nvidiaSMIApps lists the PIDs of processes holding GPU memory, or ok=false
// when nvidia-smi is absent (no GPUs, or a CPU-only test machine).
func nvidiaSMIApps(ctx context.Context) ([]int, bool, error) {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil, false, nil
	}
	out, err := exec.CommandContext(ctx, path, "--query-compute-apps=pid", "--format=csv,noheader").Output()
	if err != nil {
		return nil, true, err
	}
	return parsePIDs(string(out)), true, nil
}

func parsePIDs(s string) []int {
	var pids []int
	for _, f := range strings.Fields(s) {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// newPIDs is the part of now that was not in before: GPU users that
// appeared after a baseline, i.e. our engine's workers (or a container's
// PIDs, which nvidia-smi reports in the host namespace).
func newPIDs(before, now []int) []int {
	seen := map[int]bool{}
	for _, p := range before {
		seen[p] = true
	}
	var out []int
	for _, p := range now {
		if !seen[p] {
			out = append(out, p)
		}
	}
	return out
}
