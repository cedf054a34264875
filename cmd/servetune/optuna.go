package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/optunadb"
	"github.com/servetune/servetune/studies/store"
)

func optunaFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "optuna", Usage: usage + ": an Optuna storage URL, sqlite:///file.db or postgresql://user@host/db (password from PGPASSWORD)"}
}

// exportCommand writes a study elsewhere; today into Optuna's storage.
func exportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a study into an Optuna storage, for optuna-dashboard and Optuna's tools",
		ArgsUsage: "STUDY",
		Flags:     []cli.Flag{dirFlag(), storageFlag(), optunaFlag("write the study here")},
		Action: func(c *cli.Context) error {
			if c.String("optuna") == "" {
				return usagef("export needs --optuna URL (sqlite:///file.db or postgresql://user@host/db)")
			}
			target, err := optunadb.ParseURL(c.String("optuna"))
			if err == nil {
				err = target.CheckPlace()
			}
			if err != nil {
				return usagef("--optuna: %v", err)
			}
			sp, trials, err := studyArg(c)
			if err != nil {
				return err
			}
			w, err := optunadb.Open(c.Context, target, sp)
			if err != nil {
				return err
			}
			defer w.Close()
			if err := w.Write(c.Context, trials, nil); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %d trials of study %q to %s\n", len(trials), sp.Study.Name, w.Where())
			return nil
		},
	}
}

// checkOptuna refuses a bad --optuna URL before anything runs.
func checkOptuna(url string) error {
	if url == "" {
		return nil
	}
	t, err := optunadb.ParseURL(url)
	if err == nil {
		err = t.CheckPlace()
	}
	if err != nil {
		return usagef("--optuna: %v", err)
	}
	return nil
}

// optunaMirror opens the --optuna storage, writes the study's trials so
// far and returns the observer that writes each finished trial (nil
// without --optuna) and what closes it.
func (e *env) optunaMirror(ctx context.Context, sp *space.Space, store *store.Store, url string) (studies.TrialObserver, func(), error) {
	if url == "" {
		return nil, func() {}, nil
	}
	target, err := optunadb.ParseURL(url)
	if err != nil {
		return nil, nil, usageError{err}
	}
	m, w, n, err := optunadb.OpenMirror(ctx, target, sp, store.Trials)
	if err != nil {
		return nil, nil, err
	}
	e.log.Info().Str("optuna", w.Where()).Int("trials", n).Msg("mirroring the study into Optuna's storage")
	return m, func() { w.Close() }, nil
}

// probeOptuna reaches the --optuna storage before the study writes
// anything (its directory, its store): a server that cannot be reached
// fails the run with nothing written, not after the study began.
func probeOptuna(ctx context.Context, url string) error {
	if url == "" {
		return nil
	}
	target, err := optunadb.ParseURL(url)
	if err != nil {
		return usageError{err}
	}
	return optunadb.Probe(ctx, target)
}
