package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// spaceOptions wires what the space validator needs from downstream
// packages; engineFiles are the --engines declarations.
func spaceOptions(engineFiles ...string) space.Options {
	return space.Options{
		EngineFiles: engineFiles,
		Supports:    engines.Supports,
		Knobs:       engineKnobs,
		Engines:     engines.Names(),
		Profile:     bench.Lookup,
		Metric:      bench.KnownMetric,
		Sampler:     search.CheckSampler,
		CheckTarget: simCards,
	}
}

// engineKnobs are the knobs a built-in engine renders, for did-you-mean.
func engineKnobs(name string) []string {
	if e, ok := engines.Lookup(name); ok {
		return e.Knobs()
	}
	return nil
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

// loadSpace reads a space file and the --engines files it is run with; a
// bad file is a usage error (exit 2).
func loadSpace(ctx context.Context, path string, engineFiles ...string) (*space.Space, error) {
	return loadSpaceWith(ctx, path, spaceOptions(engineFiles...))
}

func loadSpaceWith(ctx context.Context, path string, opt space.Options) (*space.Space, error) {
	sp, err := space.Load(ctx, path, opt)
	var se *space.Error
	if errors.As(err, &se) {
		return nil, usageError{err}
	}
	return sp, err
}

// parseStoredSpace re-reads the space a study was created with, knowing
// the engines it declared (stored under metaEngines when it ran).
func parseStoredSpace(ctx context.Context, file, src string, declared map[string]space.EngineDecl) (*space.Space, error) {
	opt := spaceOptions()
	opt.Declared = declared
	opt.NodesGiven = true // the run that stored it may have had --nodes
	return space.Parse(ctx, file, src, opt)
}

// metaEngines is the study metadata key holding the declared engines a
// study ran with, so that show and best read it without its engines files.
const metaEngines = "declared_engines"

// storedEngines reads what a run recorded under metaEngines (nil if none).
func storedEngines(ctx context.Context, store *studies.Store) (map[string]space.EngineDecl, error) {
	raw, err := store.Meta(ctx, metaEngines)
	if err != nil || raw == "" {
		return nil, err
	}
	var out map[string]space.EngineDecl
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("study %s: %s: %w", store.Path(), metaEngines, err)
	}
	return out, nil
}

// recordEngines stores the run's declared engines under metaEngines.
func recordEngines(ctx context.Context, store *studies.Store, sp *space.Space) error {
	if len(sp.Target.Declared) == 0 {
		return nil
	}
	b, err := json.Marshal(sp.Target.Declared)
	if err != nil {
		return err
	}
	return store.SetMeta(ctx, metaEngines, string(b))
}

// enginesFlag is --engines on run and command.
func enginesFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "engines", Usage: "a file of [engines.<name>] declarations (repeatable; see docs/engines.md)"}
}

// loadRunSpace loads the space run and worker execute, with the flags
// that override it: --engines files, --nodes (a hostlist such as
// "$SLURM_JOB_NODELIST": a scheduler names other nodes each job) and
// --n-trials.
func loadRunSpace(c *cli.Context) (*space.Space, error) {
	opt := spaceOptions(c.StringSlice("engines")...)
	nodes := c.String("nodes")
	opt.NodesGiven = nodes != ""
	sp, err := loadSpaceWith(c.Context, c.Args().First(), opt)
	if err != nil {
		return nil, err
	}
	if nodes != "" {
		hosts, err := space.ExpandHostlist(nodes)
		if err != nil {
			return nil, usagef("--nodes: %v", err)
		}
		sp.Target.Nodes = hosts
		if err := sp.Target.CheckHead(); err != nil {
			return nil, usagef("--nodes %s: target.host %v", nodes, err)
		}
	}
	if n := c.Int("n-trials"); n > 0 {
		sp.Study.NTrials = n
	}
	return sp, nil
}

func nodesFlag() cli.Flag {
	return &cli.StringFlag{Name: "nodes", Usage: "hosts that trials needing more GPUs than one node has spread over, a hostlist such as gpu[01-04] or \"$SLURM_JOB_NODELIST\" (overrides target.nodes; ranks start through target.node_launch)"}
}
