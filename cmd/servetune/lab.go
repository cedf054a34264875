package main

import (
	"errors"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/studies/lab"
)

func labCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "lab",
		Usage: "measure the samplers against each other and against greedy search on simulator landscapes (long: minutes)",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "landscape", Value: cli.NewStringSlice(lab.Landscapes()...), Usage: "glm52, qwen3"},
			&cli.StringFlag{Name: "samplers", Value: "motpe,tpe,random,greedy,cmaes", Usage: "comma-separated samplers for the single-objective runs"},
			&cli.StringFlag{Name: "mo-samplers", Value: "motpe,random", Usage: "comma-separated samplers for the two-objective runs (empty: skip)"},
			&cli.IntFlag{Name: "seeds", Value: 20},
			&cli.IntFlag{Name: "first-seed", Value: 1, Usage: "number of the first seed (seeds N..N+seeds-1): fresh seeds check figures judged on seeds from 1; a seed's reality and noise depend on its number only"},
			&cli.IntFlag{Name: "trials", Value: 60},
			&cli.Float64Flag{Name: "noise", Value: 0.05, Usage: "measurement noise, coefficient of variation"},
			&cli.Float64Flag{Name: "confirm", Value: search.DefaultConfirmShare, Usage: "share of each study's trials spent measuring the baseline and the best configs again, as servetune run --confirm (0: never)"},
			&cli.BoolFlag{Name: "pruning", Value: true, Usage: "also measure pruning + infeasibility learning against the first sampler without them"},
			&cli.Float64SliceFlag{Name: "prune-margin", Usage: "pruning margins to measure (default: the default rule's)"},
			&cli.StringFlag{Name: "json", Usage: "write every run's curves to this file"},
			&cli.IntFlag{Name: "workers", Value: 1, Usage: "trials each study runs at once, on a virtual clock (curves stay by trial number)"},
			&cli.BoolFlag{Name: "prior", Value: true, Usage: "also measure the first sampler with the simulator prior (+ pruning and infeasibility learning)"},
			&cli.BoolFlag{Name: "perturbed", Usage: "instead: each seed against its own reality from the widened family (one exhaustive grid per seed), every sampler with pruning and without the prior, then the first with it"},
			&cli.StringFlag{Name: "held-out", Usage: "with --perturbed: apply this held-out kind of simulator error (interaction, reversed or threshold; docs/search.md) to each seed's reality; the prior never sees it"},
			&cli.BoolFlag{Name: "multi", Usage: "with --perturbed: on both objectives (hypervolume against each reality's front), with the first of --mo-samplers"},
			&cli.StringFlag{Name: "cache", Usage: "keep every simulated outcome (truths and the prior's) in this directory between runs; a simulated outcome is keyed on the cards, the reality, the profiles and the simulator's code, so a changed simulator misses it; clear it after a change to the load generator or the trial code"},
			&cli.BoolFlag{Name: "trace", Usage: "with --json: each run's trials too (config, origin, state, measured, true and predicted value of the first objective), to read where a seed's study went"},
			&cli.StringFlag{Name: "cards", Usage: "TOML `FILE` of cards (servetune card output) over the built-in ones, for the truth and the prior alike"},
			&cli.StringFlag{Name: "reality-cards", Usage: "TOML cards (the --cards format) that override the cards for the truth only; the prior keeps the built-in (or --cards) cards"},
		},
		Action: func(c *cli.Context) error {
			m, err := labMatrix(c)
			if err != nil {
				return err
			}
			all, err := m.Run(c.Context, e.log, e.stdout)
			var ue lab.UsageError
			if errors.As(err, &ue) {
				return usagef("%v", ue.Err)
			}
			if err != nil {
				return err
			}
			return lab.WriteJSON(c.String("json"), all)
		},
	}
}

// labMatrix is the experiment the flags ask for; a bad flag is a usage
// error before any simulation starts (lab.Matrix.Check).
func labMatrix(c *cli.Context) (lab.Matrix, error) {
	m := lab.Matrix{
		Landscapes: c.StringSlice("landscape"), Samplers: split(c.String("samplers")), MOSamplers: split(c.String("mo-samplers")),
		Seeds: c.Int("seeds"), FirstSeed: c.Int("first-seed"), Trials: c.Int("trials"), NoiseCV: c.Float64("noise"), Confirm: c.Float64("confirm"), Workers: c.Int("workers"),
		Pruning: c.Bool("pruning"), Margins: c.Float64Slice("prune-margin"), Prior: c.Bool("prior"),
		Perturbed: c.Bool("perturbed"), HeldOut: c.String("held-out"), Multi: c.Bool("multi"), Cache: c.String("cache"),
		Trace: c.Bool("trace"),
	}
	if err := m.Check(); err != nil {
		return m, usagef("%v", err)
	}
	if m.Trace && c.String("json") == "" {
		return m, usagef("--trace puts each run's trials into the --json file: give --json FILE")
	}
	var err error
	m.Cards, m.RealityCards, err = lab.LoadCards(c.String("cards"), c.String("reality-cards"))
	var ue lab.UsageError
	if errors.As(err, &ue) {
		return m, usagef("%v", ue.Err)
	}
	return m, err
}

func split(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
