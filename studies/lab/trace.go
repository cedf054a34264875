package lab

import (
	"context"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// TrialTrace is one trial of a lab study as the lab sees it: what the
// study measured beside the reality's noiseless value and the prior's
// prediction, so that a seed's miss can be read trial by trial (where the
// search went, which lucky draw it reported) without a throwaway hook.
type TrialTrace struct {
	Number int          `json:"number"`
	Origin string       `json:"origin"`
	State  string       `json:"state"`
	Config space.Config `json:"config"`
	// Measured is the first objective's measured value (complete trials).
	Measured *float64 `json:"measured,omitempty"`
	// True is the config's noiseless value in this reality; absent when it
	// fails there.
	True *float64 `json:"true,omitempty"`
	// Prior is the prior's noiseless prediction (runs with the prior),
	// absent when it predicts a failure.
	Prior *float64 `json:"prior,omitempty"`
	// PrunedAt is the checkpoint a pruned trial stopped at, in tenths of
	// its requests, and Why the rule's reason: whether a false prune came
	// late, where the margin is narrow, or early, from a ramp.
	PrunedAt int    `json:"pruned_at,omitempty"`
	Why      string `json:"why,omitempty"`
}

// traceOf traces the trials that count (a config that broke a rule never
// launched), on the first objective; prior is nil for runs without it.
func traceOf(ctx context.Context, o, prior *Oracle, sp *space.Space, trials []store.Trial) []TrialTrace {
	obj := sp.Objectives[0]
	var out []TrialTrace
	for _, t := range trials {
		if t.BrokeRule() {
			continue
		}
		tt := TrialTrace{Number: t.Number, Origin: t.Origin, State: string(t.State), Config: t.Config,
			True: finite(trueValue(ctx, o, t.Config, obj))}
		if t.State == store.Complete {
			tt.Measured = finite(studies.Values(sp, t)[0])
		}
		if n := len(t.Intermediate); t.State == store.Pruned && n > 0 {
			tt.PrunedAt, tt.Why = t.Intermediate[n-1].Step, t.Reason
		}
		if prior != nil {
			tt.Prior = finite(trueValue(ctx, prior, t.Config, obj))
		}
		out = append(out, tt)
	}
	return out
}
