package preflight

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// gpu is one device as nvidia-smi lists it; memory in MiB.
type gpu struct {
	index, uuid string
	used, total float64
}

// busyMiB is the memory a GPU nobody uses does not hold: a driver and a
// display take a few hundred MiB, an engine tens of GiB.
const busyMiB = 1024

// checkGPUs: the devices the study will use (devices, else the first
// target.gpus) are visible and free of other processes' memory.
func checkGPUs(ctx context.Context, sp *space.Space, devices []string, w World) Check {
	const name = "gpus"
	want := devices
	if len(want) == 0 {
		for i := range sp.Target.GPUs {
			want = append(want, strconv.Itoa(i))
		}
	}
	list, present, err := w.SMI(ctx, "--query-gpu=index,uuid,memory.used,memory.total", "--format=csv,noheader,nounits")
	switch {
	case !present:
		return fail(name, "nvidia-smi is not installed: no GPU is visible, and the space needs %d", len(want))
	case err != nil:
		return fail(name, "nvidia-smi: %v", err)
	}
	gpus := parseGPUs(list)
	apps, _, _ := w.SMI(ctx, "--query-compute-apps=pid,gpu_uuid,used_memory", "--format=csv,noheader,nounits")
	holders := parseApps(apps)
	var problems []string
	for _, d := range want {
		i := slices.IndexFunc(gpus, func(g gpu) bool { return g.index == d || g.uuid == d })
		if i < 0 {
			problems = append(problems, fmt.Sprintf("GPU %s is not visible (nvidia-smi lists %d)", d, len(gpus)))
			continue
		}
		if p := busy(gpus[i], holders[gpus[i].uuid]); p != "" {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		return fail(name, "%s", strings.Join(problems, "; "))
	}
	return ok(name, "%d of %d visible GPUs to use (%s), all free", len(want), len(gpus), strings.Join(want, ","))
}

// busy says why a GPU is not free, or "".
func busy(g gpu, pids []string) string {
	switch {
	case len(pids) > 0:
		return fmt.Sprintf("GPU %s is in use by pid %s (%.0f MiB held)", g.index, strings.Join(pids, ","), g.used)
	case g.used > busyMiB:
		return fmt.Sprintf("GPU %s holds %.0f of %.0f MiB", g.index, g.used, g.total)
	}
	return ""
}

// parseGPUs reads `--query-gpu=index,uuid,memory.used,memory.total
// --format=csv,noheader,nounits`; lines that are not one GPU are skipped.
func parseGPUs(s string) []gpu {
	var out []gpu
	for _, line := range strings.Split(s, "\n") {
		f := fields(line)
		if len(f) != 4 {
			continue
		}
		if _, err := strconv.Atoi(f[0]); err != nil {
			continue
		}
		used, err1 := strconv.ParseFloat(f[2], 64)
		total, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			used, total = 0, 0 // "[N/A]": memory unknown, the device still counts
		}
		out = append(out, gpu{index: f[0], uuid: f[1], used: used, total: total})
	}
	return out
}

// parseApps reads `--query-compute-apps=pid,gpu_uuid,used_memory`: the
// pids holding memory on each GPU UUID.
func parseApps(s string) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(s, "\n") {
		f := fields(line)
		if len(f) < 2 {
			continue
		}
		if n, err := strconv.Atoi(f[0]); err != nil || n <= 0 {
			continue
		}
		out[f[1]] = append(out[f[1]], f[0])
	}
	return out
}

func fields(line string) []string {
	if strings.TrimSpace(line) == "" {
		return nil
	}
	f := strings.Split(line, ",")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f
}

// usesGPUs says whether the study's trials run on GPUs at all.
func usesGPUs(sp *space.Space) bool {
	return studies.TargetDevice(sp.Target, engineNames(sp)) == "gpu"
}
