package bench

// Checkpoints is how many equal parts a benchmark's requests are cut into
// for pruning: a checkpoint falls after each of the first Checkpoints-1
// parts (the last part's end is the run's own result).
const Checkpoints = 10

// Checkpoint is one intermediate report of a run: step s of
// 1..Checkpoints-1, due once Requests requests have finished.
type Checkpoint struct {
	Step     int
	Requests int
}

// CheckpointSteps lists the checkpoints of a run of total requests, in
// order: step s is due after total*s/Checkpoints finished requests. Steps
// that would fall before the first request finishes are left out, and with
// fewer than Checkpoints requests several steps may share a count. Live
// runs and the simulator both use it, so a profile is pruned at the same
// points whichever ran it.
func CheckpointSteps(total int) []Checkpoint {
	var cps []Checkpoint
	for step := 1; step < Checkpoints; step++ {
		if n := total * step / Checkpoints; n > 0 {
			cps = append(cps, Checkpoint{Step: step, Requests: n})
		}
	}
	return cps
}
