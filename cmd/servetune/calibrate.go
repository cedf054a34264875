package main

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// maxCalibrationTrials bounds the simulations per fitting step: a dozen
// trials pin the factors a study can identify.
const maxCalibrationTrials = 12

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
	cards, err := targetCards(sp.Target)
	if err != nil {
		return err
	}
	if err := addCards(cards, "cards", c.String("cards")); err != nil {
		return err
	}
	res, n, err := calibrateStudy(c.Context, sp, trials, cards)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	out, err := fittedCards(res.Cards, cards, sp.Target)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	if err := os.WriteFile(c.String("out"), out, 0o644); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	printCalibration(e.stdout, res, n, "trials")
	fmt.Fprintf(e.stdout, "wrote %s (servetune sim serve --cards, lab --reality-cards)\n", c.String("out"))
	return nil
}

// addCards reads the cards file of a flag (--cards) over cards (nothing
// for "").
func addCards(cards *sim.Cards, flag, path string) error {
	if path == "" {
		return nil
	}
	src, err := sim.ReadCardFile(path)
	if err != nil {
		return usagef("--%s: %v", flag, err)
	}
	if err := cards.AddFile(path, src); err != nil {
		return usagef("--%s: %v", flag, err)
	}
	return nil
}

// calibrateStudy fits the cards to the study's trials; n is how many
// trials it used.
func calibrateStudy(ctx context.Context, sp *space.Space, trials []store.Trial, cards *sim.Cards) (*calib.Result, int, error) {
	pts := calibrationPoints(sp, trials)
	if len(pts) < 2 {
		return nil, len(pts), fmt.Errorf("the study has %d complete trials with a positive %s; at least 2 are needed", len(pts), sp.Objectives[0].Metric)
	}
	fs, err := calib.Candidates(cards, sp.Target.GPU, sp.Target.Model)
	if err != nil {
		return nil, len(pts), err
	}
	slots := calibrationSlots(sp, pts)
	p := calib.Problem{Cards: cards, Factors: fs, Trials: len(pts), Predict: simulatedSlots(sp, pts, slots)}
	cfgs, ran := startObservations(trials)
	p.Ran, p.Starts = ran, simulatedStarts(sp, cfgs)
	for _, s := range slots {
		p.Labels = append(p.Labels, s.Profile+" "+s.Metric)
		p.Measured = append(p.Measured, pts[s.Trial].Metrics[s.Profile][s.Metric])
	}
	res, err := calib.Fit(ctx, p)
	return res, len(pts), err
}

// calibrationPoints are the study's complete, non-reused trials with a
// positive first objective, at most maxCalibrationTrials, best first (the
// region the next study will care about).
func calibrationPoints(sp *space.Space, trials []store.Trial) []store.Trial {
	var out []store.Trial
	for _, t := range trials {
		if t.State == store.Complete && t.ReusedFrom == 0 && studies.Values(sp, t)[0] > 0 {
			out = append(out, t)
		}
	}
	obj := sp.Objectives[0]
	sort.SliceStable(out, func(i, j int) bool { return obj.Better(studies.Values(sp, out[i])[0], studies.Values(sp, out[j])[0]) })
	return out[:min(len(out), maxCalibrationTrials)]
}
