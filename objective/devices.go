package objective

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/servetune/servetune/space"
)

// ParseDevices reads a GPU list as --gpus, CUDA_VISIBLE_DEVICES and
// SLURM_JOB_GPUS write it: comma-separated indices, index ranges (0-7),
// or device UUIDs (GPU-…, MIG-…). Each device appears once, in order.
func ParseDevices(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for i, part := range strings.Split(s, ",") {
		ids, err := devicePart(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("GPU list %q, item %d: %w", s, i+1, err)
		}
		for _, id := range ids {
			if seen[id] {
				return nil, fmt.Errorf("GPU list %q: device %s appears twice", s, id)
			}
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// maxDevices bounds a range so that "0-999999999" is an error, not an
// allocation.
const maxDevices = 1024

func devicePart(p string) ([]string, error) {
	switch {
	case p == "":
		return nil, fmt.Errorf("empty device")
	case strings.HasPrefix(p, "GPU-") || strings.HasPrefix(p, "MIG-"):
		return []string{p}, nil
	}
	lo, hi, isRange := strings.Cut(p, "-")
	a, err := deviceIndex(lo)
	if err != nil || !isRange {
		return []string{strconv.Itoa(a)}, err
	}
	b, err := deviceIndex(hi)
	if err != nil {
		return nil, err
	}
	if b < a || b-a >= maxDevices {
		return nil, fmt.Errorf("range %s must go up, by fewer than %d devices", p, maxDevices)
	}
	out := make([]string, 0, b-a+1)
	for i := a; i <= b; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out, nil
}

func deviceIndex(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= maxDevices {
		return 0, fmt.Errorf("%q is not a GPU index (0 to %d) or UUID", s, maxDevices-1)
	}
	return n, nil
}

// DevicesFromEnv is the GPU set a scheduler gave this process.
// CUDA_VISIBLE_DEVICES comes first: it is what the process's CUDA sees,
// numbered as the trials' engines must name them (SLURM sets it per
// step, renumbered from 0 where cgroups confine the devices, while
// SLURM_JOB_GPUS keeps the node's numbering and the whole job's set).
// Then SLURM's step and job GPUs, then NVIDIA_VISIBLE_DEVICES (the
// Kubernetes device plugin's). Empty when none is set; "all" and "none"
// name no list.
func DevicesFromEnv(getenv func(string) string) ([]string, string, error) {
	for _, name := range []string{"CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "NVIDIA_VISIBLE_DEVICES"} {
		v := strings.TrimSpace(getenv(name))
		if v == "" || v == "all" || v == "none" || v == "void" {
			continue
		}
		ids, err := ParseDevices(v)
		if err != nil {
			return nil, name, fmt.Errorf("$%s: %w", name, err)
		}
		return ids, name, nil
	}
	return nil, "", nil
}

// WithDevices is the target a packed trial launches: its engine sees only
// the trial's GPUs (CUDA_VISIBLE_DEVICES), whatever the target set. The
// target is copied; nil devices leave it as it is.
func WithDevices(t space.Target, devices []string) space.Target {
	if len(devices) == 0 {
		return t
	}
	env := maps.Clone(t.Env)
	if env == nil {
		env = map[string]string{}
	}
	env["CUDA_VISIBLE_DEVICES"] = strings.Join(devices, ",")
	t.Env = env
	return t
}
