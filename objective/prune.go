package objective

// Checkpoint is what a benchmark had measured partway through one
// profile: at Step (of bench.Checkpoints), the metrics of the requests
// finished so far.
type Checkpoint struct {
	Profile string             `json:"profile"`
	Step    int                `json:"step"`
	Metrics map[string]float64 `json:"metrics"`
}

// Verdict is a judge's decision at a checkpoint.
type Verdict struct {
	Stop bool   `json:"stop"`
	Why  string `json:"why,omitempty"`
	// Projected estimates the stopped trial's final objective values, so
	// the sampler learns an estimate rather than a penalty.
	Projected []float64 `json:"projected,omitempty"`
}

// Judge decides at a checkpoint whether a trial can still win. It is a
// pure function of the checkpoint (the study fixes the incumbents it
// compares against before the trial starts), so runners may call it from
// any goroutine and the study records the outcome in one place.
type Judge func(Checkpoint) Verdict

// Report is how every runner reports a checkpoint: it is recorded in res
// and judged; true means stop and return ErrPruned.
func (t Trial) Report(res *Result, profile string, step int, metrics map[string]float64) bool {
	if t.Judge == nil {
		return false
	}
	// A per-GPU or cost objective is judged at checkpoints as at the end
	// (Measure).
	metrics = derived(metrics, t)
	cp := Checkpoint{Profile: profile, Step: step, Metrics: metrics}
	res.Checkpoints = append(res.Checkpoints, cp)
	v := t.Judge(cp)
	if v.Stop {
		res.Pruned = &v
	}
	return v.Stop
}
