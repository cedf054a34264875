package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/BurntSushi/toml"
	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// maxCalibrationTrials bounds the simulations per candidate card: a
// handful of trials fixes three factors.
const maxCalibrationTrials = 12

func calibrateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "calibrate",
		Usage:     "fit the GPU card's efficiency factors to a finished study's measurements",
		ArgsUsage: "STUDY (a name under --dir, or a study.db path)",
		Description: "Scales the target GPU card's HBM bandwidth, compute (BF16 and FP8) and NVLink so that the\n" +
			"simulator reproduces the study's complete trials on its first objective, prints the error\n" +
			"before and after, and writes the fitted card for --cards / --reality-cards.",
		Flags: []cli.Flag{dirFlag(),
			&cli.StringFlag{Name: "out", Required: true, Usage: "write the fitted card (TOML) here"},
		},
		Action: func(c *cli.Context) error { return e.calibrate(c) },
	}
}

func (e *env) calibrate(c *cli.Context) error {
	sp, trials, err := studyArg(c)
	if err != nil {
		return err
	}
	obs := calibrationPoints(sp, trials)
	if len(obs) < 2 {
		return fmt.Errorf("calibrate: the study has %d complete trials with a positive %s; at least 2 are needed", len(obs), sp.Objectives[0].Metric)
	}
	cards := sim.DefaultCards()
	gpu, err := cards.GPU(sp.Target.GPU)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	eval := func(f scales) []float64 { return simulateAt(c.Context, sp, cards, gpu, f, obs) }
	measured := make([]float64, len(obs))
	for i, t := range obs {
		measured[i] = studies.Values(sp, t)[0]
	}
	before := logError(eval(scales{1, 1, 1}), measured)
	fit := fitScales(eval, measured)
	after := logError(eval(fit), measured)
	fmt.Fprintf(e.stdout, "%d trials, %s: mean error %.1f%% before, %.1f%% after (bandwidth ×%.2f, compute ×%.2f, NVLink ×%.2f)\n",
		len(obs), sp.Objectives[0].Metric, pct(before), pct(after), fit[0], fit[1], fit[2])
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(struct {
		GPUs []sim.GPUCard `toml:"gpu"`
	}{[]sim.GPUCard{fit.apply(gpu)}}); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	return os.WriteFile(c.String("out"), buf.Bytes(), 0o644)
}

// calibrationPoints are the study's complete, non-reused trials with a
// positive first objective, at most maxCalibrationTrials, best first (the
// region the next study will care about).
func calibrationPoints(sp *space.Space, trials []studies.Trial) []studies.Trial {
	var out []studies.Trial
	for _, t := range trials {
		if t.State == studies.Complete && t.ReusedFrom == 0 && studies.Values(sp, t)[0] > 0 {
			out = append(out, t)
		}
	}
	obj := sp.Objectives[0]
	sort.SliceStable(out, func(i, j int) bool { return obj.Better(studies.Values(sp, out[i])[0], studies.Values(sp, out[j])[0]) })
	return out[:min(len(out), maxCalibrationTrials)]
}

// scales multiply the GPU card's HBM bandwidth, compute and NVLink.
type scales [3]float64

func (f scales) apply(g sim.GPUCard) sim.GPUCard {
	g.HBMTBs *= f[0]
	g.BF16TFLOPs *= f[1]
	g.FP8TFLOPs *= f[1]
	g.NVLinkGBs *= f[2]
	return g
}

// simulateAt predicts each trial's first objective with the card scaled;
// NaN where the simulator refuses the config.
func simulateAt(ctx context.Context, sp *space.Space, cards *sim.Cards, gpu sim.GPUCard, f scales, ts []studies.Trial) []float64 {
	cs := &sim.Cards{GPUs: append([]sim.GPUCard{f.apply(gpu)}, cards.GPUs...), Models: cards.Models, Drafts: cards.Drafts}
	r := objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: cs}))
	t := sp.Target
	t.Sim.NoiseCV = 0
	out := make([]float64, len(ts))
	for i, tr := range ts {
		res, err := r.Run(ctx, objective.Trial{Config: tr.Config, Target: t, Profiles: sp.Profiles})
		out[i] = math.NaN()
		if err == nil {
			out[i] = studies.Values(sp, studies.Trial{State: studies.Complete, Metrics: res.Metrics})[0]
		}
	}
	return out
}

// fitScales is coordinate descent on the mean |log(sim/measured)| over
// a multiplicative ladder that narrows each pass: cheap (≈ 50
// simulations per trial) and enough for three factors.
func fitScales(eval func(scales) []float64, measured []float64) scales {
	best := scales{1, 1, 1}
	bestErr := logError(eval(best), measured)
	for _, step := range []float64{0.3, 0.12, 0.05} {
		for k := range best {
			for _, m := range []float64{math.Exp(-2 * step), math.Exp(-step), math.Exp(step), math.Exp(2 * step)} {
				f := best
				f[k] *= m
				if e := logError(eval(f), measured); e < bestErr {
					best, bestErr = f, e
				}
			}
		}
	}
	return best
}

// logError is the mean |log(sim/measured)|; a config the simulator
// refuses counts as a large error (5, a factor of ~150).
func logError(sim, measured []float64) float64 {
	sum := 0.0
	for i := range measured {
		if sim[i] > 0 && measured[i] > 0 {
			sum += math.Abs(math.Log(sim[i] / measured[i]))
		} else {
			sum += 5
		}
	}
	return sum / float64(len(measured))
}

func pct(logErr float64) float64 { return (math.Exp(logErr) - 1) * 100 }
