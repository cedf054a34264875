package main

import (
	"context"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// checkDrift applies the study's drift policy (studies.CheckDrift) to the
// environment now, logging what on_drift = "warn" lets pass.
func (e *env) checkDrift(ctx context.Context, sp *space.Space, trials []store.Trial) error {
	warn, err := studies.CheckDrift(sp, trials, func(name string) engines.Fingerprint {
		return launch.EnvironmentNow(ctx, sp.Target, name)
	})
	for _, d := range warn {
		e.log.Warn().Str("study", sp.Study.Name).Msg("environment drift (on_drift = \"warn\"): " + d)
	}
	return err
}
