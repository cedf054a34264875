package main

import (
	"context"
	"errors"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// spaceOptions wires what the space validator needs from downstream packages.
func spaceOptions() space.Options {
	return space.Options{
		Supports:    engines.Supports,
		Engines:     engines.Names(),
		Profile:     bench.Lookup,
		Metric:      bench.KnownMetric,
		Sampler:     search.CheckSampler,
		CheckTarget: simCards,
	}
}

// simCards refuses a simulated target whose GPU or model has no card:
// every trial would fail on it.
func simCards(t space.Target) []space.Problem {
	if t.Runner != "sim" {
		return nil
	}
	cards := sim.DefaultCards()
	var out []space.Problem
	if _, err := cards.GPU(t.GPU); err != nil {
		out = append(out, space.Problem{Key: "target.gpu", Msg: err.Error()})
	}
	if _, err := cards.Model(t.Model); err != nil {
		out = append(out, space.Problem{Key: "target.model", Msg: err.Error()})
	}
	return out
}

// loadSpace reads a space file; a bad file is a usage error (exit 2).
func loadSpace(ctx context.Context, path string) (*space.Space, error) {
	sp, err := space.Load(ctx, path, spaceOptions())
	var se *space.Error
	if errors.As(err, &se) {
		return nil, usageError{err}
	}
	return sp, err
}

// parseStoredSpace re-reads the space a study was created with.
func parseStoredSpace(ctx context.Context, file, src string) (*space.Space, error) {
	return space.Parse(ctx, file, src, spaceOptions())
}
