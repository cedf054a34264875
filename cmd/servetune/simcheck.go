package main

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/fidelity"
	"github.com/servetune/servetune/studies"
	"github.com/urfave/cli/v2"
)

// simFidelityCommands are `sim check` and `sim fit`: replay a
// measurements file through the simulator, and refit the vLLM step model
// to one.
func simFidelityCommands(e *env) []*cli.Command {
	common := []cli.Flag{
		&cli.StringFlag{Name: "seeds", Usage: "seed points TOML (engines/sim/testdata/calibration.toml) whose vLLM points join the fit"},
		&cli.StringFlag{Name: "history", Value: fidelity.HistoryNone, Usage: "multi-turn runs: none (system prompt + question each round) | restart | truncate"},
		&cli.StringFlag{Name: "cards", Usage: "TOML file of extra model/GPU cards"},
		&cli.IntFlag{Name: "iterations", Value: 8, Usage: "fit iterations (simulate, linearise, solve)"},
		&cli.Float64Flag{Name: "ridge", Value: 0.02, Usage: "pull of each coefficient toward its prior (relative)"},
	}
	return []*cli.Command{{
		Name:      "check",
		Usage:     "replay real measurements through the simulator: MAPE per run, stage and overall, saturated stages, one-knob Spearman",
		ArgsUsage: "MEASUREMENTS.json",
		Description: "The file is the calibration set's format (docs/sim.md). --loo refits the coefficients without\n" +
			"each run before predicting it (leave-one-out), the honest figure; without it the built-in fit is used.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.BoolFlag{Name: "loo", Usage: "leave-one-out: fit on the other runs, predict each"},
			&cli.StringFlag{Name: "loo-start", Value: "prior", Usage: "where each leave-one-out fit starts: prior (nothing of the held-out run) | fitted (the built-in fit, faster with few --iterations)"},
		}, common...),
		Action: func(c *cli.Context) error { return e.simCheck(c) },
	}, {
		Name:      "fit",
		Usage:     "fit the vLLM step model's coefficients to real measurements (the source of sim.FittedVLLM)",
		ArgsUsage: "MEASUREMENTS.json",
		Flags:     append([]cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the coefficients as JSON"}}, common...),
		Action:    func(c *cli.Context) error { return e.simFit(c) },
	}}
}

type fidelityInputs struct {
	file *fidelity.File
	rp   *fidelity.Replayer
	opt  fidelity.FitOptions
}

func fidelityArgs(c *cli.Context) (*fidelityInputs, error) {
	if c.NArg() != 1 {
		return nil, usagef("want one measurements file, got %d arguments", c.NArg())
	}
	f, err := fidelity.Load(c.Args().First())
	if err != nil {
		return nil, usagef("%v", err)
	}
	h := c.String("history")
	if err := fidelity.CheckHistory(h); err != nil {
		return nil, usageError{err}
	}
	cards, err := loadCardsFlag(c.String("cards"))
	if err != nil {
		return nil, err
	}
	if err := f.CardProblems(cards); err != nil {
		return nil, usagef("%s: %v", c.Args().First(), err)
	}
	in := &fidelityInputs{file: f, rp: &fidelity.Replayer{Cards: cards, History: h},
		opt: fidelity.FitOptions{Iterations: c.Int("iterations"), Ridge: c.Float64("ridge")}}
	if err := in.opt.Check(); err != nil {
		return nil, usageError{err}
	}
	if p := c.String("seeds"); p != "" {
		if in.opt.Seeds, err = fidelity.LoadSeeds(p); err != nil {
			return nil, usagef("--seeds %s: %v", p, err)
		}
	}
	return in, nil
}

// loadCardsFlag is the built-in cards with --cards over them.
func loadCardsFlag(path string) (*sim.Cards, error) {
	cards := sim.DefaultCards()
	if err := addCards(cards, "cards", path); err != nil {
		return nil, err
	}
	return cards, nil
}

func (e *env) simCheck(c *cli.Context) error {
	in, err := fidelityArgs(c)
	if err != nil {
		return err
	}
	studies.NoteReplaced(e.log, c.String("cards"), in.rp.Cards)
	mode, predict := "fitted", fidelity.Fitted(in.rp, nil)
	if c.Bool("loo") {
		mode = "leave-one-out"
		start, err := fidelity.LOOStart(c.String("loo-start"))
		if err != nil {
			return usageError{err}
		}
		predict = fidelity.LeaveOneOut(in.rp, in.file.Runs, start, in.opt)
	}
	// One fold per core: a leave-one-out check is 13 independent refits.
	rep, err := fidelity.CheckWorkers(c.Context, in.file, mode, predict, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	rep.AddIntervals(in.rp.Uncertainties(in.file.Runs))
	if c.Bool("json") {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return fidelity.WriteText(e.stdout, rep)
}

func (e *env) simFit(c *cli.Context) error {
	in, err := fidelityArgs(c)
	if err != nil {
		return err
	}
	studies.NoteReplaced(e.log, c.String("cards"), in.rp.Cards)
	coef, err := fidelity.Fit(c.Context, in.rp, in.file.Runs, in.opt)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(fidelity.ByName(coef))
	}
	_, err = fmt.Fprintf(e.stdout, "// servetune sim fit %s\nreturn %s\n", c.Args().First(), coef.GoLiteral())
	return err
}
