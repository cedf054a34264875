package studies

import (
	"errors"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/studies/store"
)

func TestCheckDrift(t *testing.T) {
	was := engines.Fingerprint{Engine: engines.VLLM, EngineVersion: "0.15.1", Device: "gpu", GPU: "H100"}
	upgraded := was
	upgraded.EngineVersion = "0.16.0"
	ran := []store.Trial{{Number: 1, Fingerprint: &engines.Fingerprint{Engine: engines.VLLM, EngineVersion: "0.14.0"}}, {Number: 2, Fingerprint: &was}}
	cases := []struct {
		name            string
		runner, onDrift string
		trials          []store.Trial
		now             engines.Fingerprint
		warn            string // the warning expected, "" for none
		refused         bool
	}{
		{name: "same environment", runner: "process", trials: ran, now: was},
		{name: "no trial recorded one", runner: "process", now: upgraded},
		{name: "simulated studies do not drift", runner: "sim", trials: ran, now: upgraded},
		{name: "upgrade refused, against the latest trial", runner: "process", onDrift: "refuse", trials: ran, now: upgraded, refused: true},
		{name: "upgrade warned", runner: "process", onDrift: "warn", trials: ran, now: upgraded, warn: "vllm: engine_version 0.15.1 → 0.16.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp := studySpace(t, 2, "")
			sp.Target.Runner, sp.Study.OnDrift = c.runner, c.onDrift
			warn, err := CheckDrift(sp, c.trials, func(string) engines.Fingerprint { return c.now })
			var de driftError
			if got := errors.As(err, &de); got != c.refused {
				t.Fatalf("refused = %v (%v), want %v", got, err, c.refused)
			}
			if c.refused && (de.Study != "unit" || !strings.Contains(err.Error(), "engine_version 0.15.1 → 0.16.0") || !strings.Contains(err.Error(), `on_drift = "warn"`)) {
				t.Errorf("refusal %q names neither the change against the latest trial nor the way out", err)
			}
			if got := strings.Join(warn, "; "); got != c.warn {
				t.Errorf("warnings %q, want %q", got, c.warn)
			}
		})
	}
}
