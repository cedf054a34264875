package space

import (
	"net"
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
	// MinTimeout is the shortest study.timeout and target wait: below a
	// second no engine starts and no request answers, so "1ns" (a unit
	// typo) ran a study that ended with no trial, or failed every one.
	MinTimeout = time.Second
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
		if f.v > 0 && f.v < MinTimeout {
			d.fail("target."+f.key, "is %v, shorter than the %v any trial needs: durations read \"30m\", \"2h\"", f.v, MinTimeout)
		}
	}
	if _, given := m["startup_timeout"]; given && t.StartupTimeout == 0 {
		// 0 reads as the default 30m, not "no wait" (trial_timeout's 0
		// is documented as derived; startup_timeout's is not).
		d.fail("target.startup_timeout", "is 0, which reads as the default 30m: give the launch → ready limit, or leave startup_timeout out")
	}
	if h, ok := m["host"].(string); ok && strings.TrimSpace(h) != "" && !validHost(h) {
		d.fail("target.host", "%q is not a host name or IP address engines can bind (no scheme, port, path or space): e.g. \"127.0.0.1\" or \"0.0.0.0\"", h)
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
	if st.Timeout > 0 && st.Timeout < MinTimeout {
		d.fail("study.timeout", "is %v, shorter than the %v any trial needs: durations read \"8h\", \"30m\"", st.Timeout, MinTimeout)
	}
}

// validHost says whether h is an IP address or a DNS host name: what an
// engine's --host takes. "http://x:80" or "not a host!" loaded and failed
// every launched trial.
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}
