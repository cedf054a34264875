package space

import (
	"strings"
	"time"
)

// Caps on what a target and a study may declare: beyond them a value is a
// typo (extra zeros, hours for minutes) that would size a plan or a wait
// without end. Generous, finite, documented in docs/space.md, "Bounds".
const (
	// MaxGPUs bounds target.gpus and the parallelism knobs (tp, dp, pp,
	// ep, prefill_instances, …): GPUs of one study.
	MaxGPUs = 65536
	// MaxTargetTimeout bounds startup_timeout, stall_timeout and
	// trial_timeout.
	MaxTargetTimeout = 30 * 24 * time.Hour
	// MaxStudyTimeout bounds study.timeout.
	MaxStudyTimeout = 366 * 24 * time.Hour
)

// boundTarget refuses target values past their caps, and strings given
// empty where leaving the key out means something (the default).
func (d *decoder) boundTarget(m map[string]any, t Target) {
	if t.GPUs > MaxGPUs {
		d.fail("target.gpus", "is %d, more than the %d GPUs a study may use", t.GPUs, MaxGPUs)
	}
	for _, f := range []struct {
		key string
		v   time.Duration
	}{{"startup_timeout", t.StartupTimeout}, {"stall_timeout", t.StallTimeout}, {"trial_timeout", t.TrialTimeout}} {
		if f.v > MaxTargetTimeout {
			d.fail("target."+f.key, "is %v, longer than the %v a wait may be", f.v, MaxTargetTimeout)
		}
	}
	for _, key := range []string{"host", "served_model_name", "gpu", "engine", "model"} {
		if s, ok := m[key].(string); ok && strings.TrimSpace(s) == "" {
			d.fail("target."+key, "is empty: leave it out for the default, or give a value")
		}
	}
}

// boundStudy refuses a study timeout past its cap.
func (d *decoder) boundStudy(st Study) {
	if st.Timeout > MaxStudyTimeout {
		d.fail("study.timeout", "is %v, longer than the %v a study may be bounded by", st.Timeout, MaxStudyTimeout)
	}
}
