package main

import (
	"context"
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// spaceOptions is the validator's wiring (studies.SpaceOptions);
// engineFiles are the --engines declarations.
func spaceOptions(engineFiles ...string) space.Options {
	return studies.SpaceOptions(studies.CardsWith(""), engineFiles...)
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

// enginesFlag is --engines on run and command.
func enginesFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "engines", Usage: "a file of [engines.<name>] declarations (repeatable; see docs/engines.md)"}
}

// loadRunSpace loads the space run and worker execute, with the flags
// that override it: --engines files, --nodes (a hostlist such as
// "$SLURM_JOB_NODELIST": a scheduler names other nodes each job) and
// --n-trials.
func (e *env) loadRunSpace(c *cli.Context) (*space.Space, error) {
	// --gpus is checked even where one trial at a time leaves it unused:
	// a typo should not wait for the day --workers is raised.
	if c.IsSet("gpus") {
		if _, err := objective.ParseDevices(c.String("gpus")); err != nil {
			return nil, usagef("--gpus: %v", err)
		}
	}
	cards := c.String("cards")
	if err := checkCardsFlag(cards); err != nil {
		return nil, err
	}
	opt := studies.SpaceOptions(studies.CardsWith(cards), c.StringSlice("engines")...)
	nodes := c.String("nodes")
	opt.NodesGiven = nodes != ""
	sp, err := loadSpaceWith(c.Context, c.Args().First(), opt)
	if err != nil && cards == "" {
		sp, err = e.withStoredCards(c, opt, err)
	}
	if err != nil {
		return nil, err
	}
	// What the file defines and the study will not use loads (it may be
	// an alternative kept to swap in), but its author is told.
	for _, n := range sp.Notes {
		e.log.Warn().Msg(n.String())
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
	if cards != "" {
		sp.Target.Sim.Cards = cards
	}
	if c.IsSet("n-trials") {
		n := c.Int("n-trials")
		if n < 1 || n > space.MaxTrials {
			return nil, usagef("--n-trials must be between 1 and %d, got %d", space.MaxTrials, n)
		}
		sp.Study.NTrials = n
	}
	return sp, nil
}

func nodesFlag() cli.Flag {
	return &cli.StringFlag{Name: "nodes", Usage: "hosts that trials needing more GPUs than one node has spread over, a hostlist such as gpu[01-04] or \"$SLURM_JOB_NODELIST\" (overrides target.nodes; ranks start through target.node_launch)"}
}

// oneSpaceFile is the refusal of a command that takes one space file
// and got another count: the arguments past the first are named, so
// `run a.toml b.toml` says which one is extra (a second file, or a flag
// value whose flag was mistyped).
func oneSpaceFile(cmd string, args []string) error {
	switch len(args) {
	case 0:
		return usagef("%s takes one search-space file, got none", cmd)
	case 2:
		return usagef("%s takes one search-space file, got a second argument, %q: one study per command (a flag before it mistyped?)", cmd, args[1])
	}
	return usagef("%s takes one search-space file, got %d arguments: %q is the file, %q are extra", cmd, len(args), args[0], args[1:])
}
