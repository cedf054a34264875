package space

import "math"

// TrialGPUs is the GPU count [target] gpus_per_trial gives config c, for
// GPUs the engines' own count gets wrong (a launch prefix that adds
// replicas, an engine that places experts on extra devices). ok is false
// when the target sets no expression or it does not apply to c (a knob
// it reads is absent): the engine's count stands then.
func (t Target) TrialGPUs(c Config) (n int, ok bool) {
	if t.GPUsPerTrial == "" {
		return 0, false
	}
	e, err := ParseExpr(t.GPUsPerTrial)
	if err != nil {
		return 0, false // refused at load; a Target built in code gets the engine's count
	}
	vars := map[string]any{"gpus": int64(t.GPUs), "gpu": t.GPU, "model": t.Model}
	if t.Engine != "" {
		vars["engine"] = t.Engine
	}
	for k, v := range c {
		vars[k] = v
	}
	f, ok := e.Number(vars)
	if !ok || f < 1 || f != math.Trunc(f) || f > maxTrialGPUs {
		return 0, false
	}
	return int(f), true
}

// maxTrialGPUs bounds gpus_per_trial so a runaway product is refused at
// load instead of overflowing the packer.
const maxTrialGPUs = 1 << 16
