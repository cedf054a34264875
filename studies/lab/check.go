package lab

import (
	"errors"
	"fmt"

	"github.com/servetune/servetune/search/samplers"
)

// MaxSeeds and MaxTrials bound a lab's matrix (Check).
const (
	MaxSeeds  = 1000
	MaxTrials = 100_000
)

// Check refuses a matrix that cannot run, before any simulation starts:
// no seeds or trials, a first seed below 1, a held-out kind without
// --perturbed or unknown, no sampler, or a sampler that does not exist or
// cannot serve its runs' objectives (one for Samplers, two for
// MOSamplers). Its errors are UsageErrors naming the lab's flags.
func (m Matrix) Check() error {
	if m.Seeds < 1 || m.Trials < 1 {
		return UsageError{errors.New("--seeds and --trials must be positive")}
	}
	if m.Seeds > MaxSeeds || m.Trials > MaxTrials {
		// A typo's extra zeros ran for days: the lab's figures settle
		// within tens of seeds, and a study of its trials is simulated
		// whole for every seed and sampler.
		return UsageError{fmt.Errorf("--seeds %d and --trials %d: at most %d seeds and %d trials a lab may run", m.Seeds, m.Trials, MaxSeeds, MaxTrials)}
	}
	if m.FirstSeed < 1 {
		return UsageError{fmt.Errorf("--first-seed %d: seeds are numbered from 1", m.FirstSeed)}
	}
	if !(m.NoiseCV >= 0 && m.NoiseCV < 1) {
		// A negative coefficient of variation drew noise of the opposite
		// sign and ran the whole lab (minutes) on it; NaN poisoned it.
		return UsageError{fmt.Errorf("--noise %g: a coefficient of variation, at least 0 and below 1", m.NoiseCV)}
	}
	if !(m.Confirm >= 0 && m.Confirm <= 0.5) { // NaN included
		return UsageError{fmt.Errorf("--confirm %g: a share between 0 and 0.5", m.Confirm)}
	}
	if m.HeldOut != "" && !m.Perturbed {
		return UsageError{fmt.Errorf("--held-out %s acts on the family's realities: give --perturbed too", m.HeldOut)}
	}
	if err := checkHeldOut(m.HeldOut); err != nil {
		return UsageError{fmt.Errorf("--held-out: %w", err)}
	}
	if len(m.Samplers) == 0 {
		return UsageError{errors.New("--samplers names no sampler")}
	}
	runs := []struct {
		flag       string
		names      []string
		objectives int
	}{{"samplers", m.Samplers, 1}, {"mo-samplers", m.MOSamplers, 2}}
	for _, r := range runs {
		for _, name := range r.names {
			if err := samplers.Check(name, r.objectives); err != nil {
				return UsageError{fmt.Errorf("--%s: %v", r.flag, err)}
			}
		}
	}
	return nil
}
