package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/servetune/servetune/space"
)

// Sampler proposes configs and learns from finished trials. Not safe for
// concurrent use.
//
// A new sampler is one file in its family's package (or a new family
// package importing only this one): a type implementing Sampler (or, for
// a model that only proposes, a Model wrapped by NewGuard, which adds what
// every model sampler shares), and a line in search/samplers naming it.
type Sampler interface {
	// Ask returns up to n configs to run next: at least one, unless every
	// config of a finite space has been measured (ErrExhausted) or nothing
	// can be proposed until a pending trial is told (ErrPending).
	//
	// pending are the configs of trials still running (asked earlier, not
	// yet told, possibly by other workers): they are never proposed again,
	// and the configs of one batch differ from each other.
	//
	// ctx bounds the work a proposal does (the simulator prior predicts
	// for seconds on a loaded machine): once it is cancelled Ask returns
	// promptly and what it returns is not to be used.
	Ask(ctx context.Context, n int, pending []space.Config) ([]space.Config, error)
	// Tell teaches the sampler one finished trial; ctx as for Ask.
	Tell(ctx context.Context, o Observation) error
}

// State is how a trial ended, as far as the sampler cares.
type State string

const (
	Complete State = "complete"
	// Failed trials (crashes, timeouts, interruptions) say nothing about
	// the region; the sampler ignores them.
	Failed State = "failed"
	// Infeasible trials (rule violations, OOM, invalid configs) mark a
	// region the sampler should leave.
	Infeasible State = "infeasible"
	Pruned     State = "pruned"
)

// Observation is one finished trial.
type Observation struct {
	Config space.Config
	State  State
	// Value is the first objective's value; it guides single-objective
	// samplers.
	Value float64
	// Values are all objective values (space order) and Violation the
	// summed relative SLO violation, for multi-objective samplers.
	Values    []float64
	Violation float64
	// Class is the failure class of a failed or infeasible trial
	// ("oom", "invalid_config", "infeasible", ...).
	Class string
	// Message is the failure's message; Feasibility reads from it which
	// knob an engine refused.
	Message string
}

// ErrExhausted is returned by Ask when a finite space has no config left
// that was not measured already.
var ErrExhausted = errors.New("every config of the space has been measured")

// ErrPending is returned by Ask when every config the sampler could
// propose is pending: the grid's last points are running, or greedy
// search needs a running trial's result to choose its next knob. The
// caller waits for a pending trial and asks again.
var ErrPending = errors.New("nothing to propose until a pending trial is told")

// Options tune a sampler.
type Options struct {
	// NoFeasibility turns off learning infeasible regions from OOM and
	// invalid-config trials (the lab measures what it saves).
	NoFeasibility bool
	// Prior, when set, guides the sampler (WithPrior); grid and greedy
	// keep their own order and ignore it.
	Prior Prior
}

// ConfigKey identifies a config whether or not it names the target's
// engine: proposals leave it out when the space has no engine knob,
// stored trials carry it.
func ConfigKey(sp *space.Space, c space.Config) string { return sp.WithTargetEngine(c).Key() }

// KeySet is the configs' keys.
func KeySet(sp *space.Space, cs []space.Config) map[string]bool {
	out := make(map[string]bool, len(cs))
	for _, c := range cs {
		out[ConfigKey(sp, c)] = true
	}
	return out
}

// Batch builds a batch from one(busy), which proposes a config that is
// not busy: each answer joins busy before the next. A batch cut short by
// ErrExhausted or ErrPending returns what it has.
func Batch(sp *space.Space, n int, pending []space.Config, one func(busy map[string]bool) (space.Config, error)) ([]space.Config, error) {
	if n < 1 {
		return nil, fmt.Errorf("ask for %d configs: at least 1", n)
	}
	busy := KeySet(sp, pending)
	var out []space.Config
	for len(out) < n {
		c, err := one(busy)
		if len(out) > 0 && (errors.Is(err, ErrExhausted) || errors.Is(err, ErrPending)) {
			break
		}
		if err != nil {
			return nil, err
		}
		busy[ConfigKey(sp, c)] = true
		out = append(out, c)
	}
	return out, nil
}
