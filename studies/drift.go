package studies

import (
	"fmt"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// driftError says the environment changed since the study's trials were
// measured, and [study] on_drift = "refuse".
type driftError struct {
	Study string
	Drift []string
}

func (e driftError) Error() string {
	return fmt.Sprintf("study %s: the environment changed since its trials ran (%s); its results would not be comparable. "+
		"Restore the environment, start a new study (another name or --fresh), or set [study] on_drift = \"warn\"",
		e.Study, strings.Join(e.Drift, "; "))
}

// CheckDrift compares, for each engine the space can launch, the
// environment now (envNow, asked only for engines a trial recorded) with
// the last one a trial of the study recorded. It returns the changes to
// warn about under on_drift = "warn", else a driftError. Simulated
// studies have no environment to drift.
func CheckDrift(sp *space.Space, trials []store.Trial, envNow func(engine string) engines.Fingerprint) (warn []string, err error) {
	if sp.Target.Runner != "process" {
		return nil, nil
	}
	var drift []string
	for _, name := range sp.Engines() {
		was := lastFingerprint(trials, name)
		if was == nil {
			continue
		}
		for _, d := range envNow(name).Drift(*was) {
			drift = append(drift, name+": "+d)
		}
	}
	switch {
	case len(drift) == 0:
		return nil, nil
	case sp.Study.OnDrift == "warn":
		return drift, nil
	}
	return nil, driftError{Study: sp.Study.Name, Drift: drift}
}

// lastFingerprint is the environment of the study's latest trial on
// engine, nil when none recorded one.
func lastFingerprint(trials []store.Trial, engine string) *engines.Fingerprint {
	for i := len(trials) - 1; i >= 0; i-- {
		if f := trials[i].Fingerprint; f != nil && f.Engine == engine {
			return f
		}
	}
	return nil
}
