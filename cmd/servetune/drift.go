package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// errDrift: the environment changed since the study's trials were
// measured and [study] on_drift = "refuse".
type errDrift struct {
	study string
	drift []string
}

func (e errDrift) Error() string {
	return fmt.Sprintf("study %s: the environment changed since its trials ran (%s); its results would not be comparable. "+
		"Restore the environment, start a new study (another name or --fresh), or set [study] on_drift = \"warn\"",
		e.study, strings.Join(e.drift, "; "))
}

// checkDrift compares, for each engine the space can launch, the
// environment now with the last one a trial of the study recorded.
// Simulated studies have no environment to drift.
func (e *env) checkDrift(ctx context.Context, sp *space.Space, trials []studies.Trial) error {
	if sp.Target.Runner != "process" {
		return nil
	}
	var drift []string
	for _, name := range sp.Engines() {
		was := lastFingerprint(trials, name)
		if was == nil {
			continue
		}
		for _, d := range engines.EnvironmentNow(ctx, sp.Target, name).Drift(*was) {
			drift = append(drift, name+": "+d)
		}
	}
	switch {
	case len(drift) == 0:
		return nil
	case sp.Study.OnDrift == "warn":
		for _, d := range drift {
			e.log.Warn().Str("study", sp.Study.Name).Msg("environment drift (on_drift = \"warn\"): " + d)
		}
		return nil
	}
	return errDrift{study: sp.Study.Name, drift: drift}
}

// lastFingerprint is the environment of the study's latest trial on
// engine, nil when none recorded one.
func lastFingerprint(trials []studies.Trial, engine string) *engines.Fingerprint {
	for i := len(trials) - 1; i >= 0; i-- {
		if f := trials[i].Fingerprint; f != nil && f.Engine == engine {
			return f
		}
	}
	return nil
}
