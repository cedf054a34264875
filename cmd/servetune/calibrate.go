package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/calibrate"
)

func calibrateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "calibrate",
		Usage:     "fit the simulator's GPU, model and draft card factors to a finished study's measurements, or to benchmark results (--measurements)",
		ArgsUsage: "STUDY (a name under --dir, or a study.db path) | --measurements FILE [FILE...]",
		Description: "Fits the target GPU card's HBM bandwidth, compute and NVLink, the model card's expert,\n" +
			"communication and memory-overhead factors and MTP acceptance, and the drafts' acceptance —\n" +
			"those the study's complete trials identify — so that the simulator reproduces their total\n" +
			"TPS, mean TPOT, mean TTFT and objectives; prints the error per metric before and after and\n" +
			"writes the fitted cards for --cards / --reality-cards.\n" +
			"With --measurements, the measurements are benchmark results you already have — `servetune bench --json`\n" +
			"or `vllm bench serve --save-result` JSON — each in a small wrapper naming the engine, model, GPU and\n" +
			"serving config (knobs or the serve command) that produced it (format: docs/sim.md, \"Calibrating from\n" +
			"benchmark results\"); it also prints the leave-one-out error (each run predicted by a fit on the others).\n" +
			"A fit is refused when the runs are fewer than the factors they identify.",
		Flags: []cli.Flag{dirFlag(), storageFlag(),
			&cli.StringFlag{Name: "out", Required: true, Usage: "write the fitted cards (TOML, the --cards format) here"},
			&cli.StringSliceFlag{Name: "measurements", Usage: "fit to these measurement `FILE`s instead of a study (repeatable; further arguments are more files)"},
			&cli.StringFlag{Name: "cards", Usage: "start from these cards (TOML) over the built-in ones and those stored with the study, e.g. a `FILE` from servetune card"},
		},
		Action: func(c *cli.Context) error { return e.calibrate(c) },
	}
}

func (e *env) calibrate(c *cli.Context) error {
	if len(c.StringSlice("measurements")) > 0 {
		return e.calibrateMeasurements(c)
	}
	sp, trials, err := studyArg(c)
	if err != nil {
		return err
	}
	cards, err := studies.TargetCards(sp.Target)
	if err != nil {
		return err
	}
	if err := addCards(cards, "cards", c.String("cards")); err != nil {
		return err
	}
	res, n, err := calibrate.Study(c.Context, sp, trials, cards)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	out, err := calibrate.FittedCards(res.Cards, cards, sp.Target)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	if err := os.WriteFile(c.String("out"), out, 0o644); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	calibrate.Print(e.stdout, res, n, "trials")
	fmt.Fprintf(e.stdout, "wrote %s (servetune sim serve --cards, lab --reality-cards)\n", c.String("out"))
	return nil
}

// addCards reads the cards file of a flag (--cards) over cards (nothing
// for "").
func addCards(cards *sim.Cards, flag, path string) error {
	if path == "" {
		return nil
	}
	if err := cards.AddPath(path); err != nil {
		return usagef("--%s: %v", flag, err)
	}
	return nil
}

func measurementFiles(c *cli.Context) []string {
	return append(c.StringSlice("measurements"), c.Args().Slice()...)
}

// calibrateMeasurements fits the cards to benchmark results (calibrate
// --measurements) as `calibrate STUDY` fits them to a study.
func (e *env) calibrateMeasurements(c *cli.Context) error {
	cards := sim.DefaultCards()
	if err := addCards(cards, "cards", c.String("cards")); err != nil {
		return err
	}
	runs, err := calibrate.LoadRuns(measurementFiles(c), cards, e.log)
	if err != nil {
		return usageError{err}
	}
	p, trialOf, err := calibrate.MeasurementProblem(runs, cards)
	if errors.Is(err, calibrate.ErrNoMetrics) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	calibrate.WarnRefused(c.Context, runs, cards, e.log)
	res, err := calib.Fit(c.Context, p)
	if tf := (*calib.TooFewTrialsError)(nil); errors.As(err, &tf) {
		return usageError{calibrate.TooFewRuns(tf)}
	}
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	loo, refused, looErr := calibrate.LeaveOneOut(c.Context, p, trialOf)
	out, err := calibrate.FittedRunCards(res.Cards, runs)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	if err := os.WriteFile(c.String("out"), out, 0o644); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	calibrate.Print(e.stdout, res, len(runs), "runs")
	calibrate.PrintLeaveOneOut(e.stdout, loo, refused, looErr)
	fmt.Fprintf(e.stdout, "wrote %s (run --cards, sim serve --cards, lab --cards)\n", c.String("out"))
	return nil
}
