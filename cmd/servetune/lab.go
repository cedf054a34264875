package main

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
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
			&cli.IntFlag{Name: "trials", Value: 60},
			&cli.Float64Flag{Name: "noise", Value: 0.05, Usage: "measurement noise, coefficient of variation"},
			&cli.BoolFlag{Name: "pruning", Value: true, Usage: "also measure pruning + infeasibility learning against the first sampler without them"},
			&cli.Float64SliceFlag{Name: "prune-margin", Usage: "pruning margins to measure (default: the default rule's)"},
			&cli.StringFlag{Name: "json", Usage: "write every run's curves to this file"},
			&cli.IntFlag{Name: "workers", Value: 1, Usage: "trials each study runs at once, on a virtual clock (curves stay by trial number)"},
			&cli.BoolFlag{Name: "prior", Value: true, Usage: "also measure the first sampler with the simulator prior (+ pruning and infeasibility learning)"},
			&cli.BoolFlag{Name: "perturbed", Usage: "instead: each seed against its own reality from the perturbed family (one exhaustive grid per seed), the first sampler with pruning, without and with the prior"},
			&cli.BoolFlag{Name: "multi", Usage: "with --perturbed: on both objectives (hypervolume against each reality's front), with the first of --mo-samplers"},
			&cli.StringFlag{Name: "cache", Usage: "keep every simulated outcome (truths and the prior's) in this directory between runs; clear it when the simulator changes"},
			&cli.StringFlag{Name: "cards", Usage: "TOML `FILE` of cards (servetune card output) over the built-in ones, for the truth and the prior alike"},
			&cli.StringFlag{Name: "reality-cards", Usage: "TOML cards (the --cards format) that override the cards for the truth only; the prior keeps the built-in (or --cards) cards"},
		},
		Action: func(c *cli.Context) error {
			if c.Int("seeds") < 1 || c.Int("trials") < 1 {
				return usagef("--seeds and --trials must be positive")
			}
			if len(split(c.String("samplers"))) == 0 {
				return usagef("--samplers names no sampler")
			}
			if err := checkSamplers(c); err != nil {
				return err
			}
			dir, err := os.MkdirTemp("", "servetune-lab-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			var all []*lab.Result
			for _, name := range c.StringSlice("landscape") {
				sp, err := lab.Load(name)
				if err != nil {
					return usagef("%v", err)
				}
				o, priorOracle, err := labOracles(sp, c.String("cards"), c.String("reality-cards"))
				if err != nil {
					return err
				}
				if err := lab.RestoreAll(c.String("cache"), o, priorOracle); err != nil {
					return err
				}
				if c.Bool("perturbed") {
					res, err := e.labPerturbed(c, name, sp, priorOracle, dir)
					if err != nil {
						return err
					}
					all = append(all, res...)
					continue
				}
				e.log.Info().Str("landscape", name).Msg("simulating every point of the space (cached for all runs)")
				grid, err := o.Exhaust(c.Context)
				if err != nil {
					return err
				}
				if err := lab.PersistAll(c.String("cache"), o); err != nil {
					return err
				}
				base := lab.Options{Expert: lab.Expert(name), Landscape: name, Seeds: c.Int("seeds"), Trials: c.Int("trials"), NoiseCV: c.Float64("noise"), Dir: dir, Log: e.log, Workers: c.Int("workers")}
				runs := []lab.Options{with(base, func(o *lab.Options) { o.Samplers = split(c.String("samplers")); o.NoFeasibility = true })}
				if c.Bool("pruning") {
					margins := c.Float64Slice("prune-margin")
					if len(margins) == 0 {
						margins = []float64{0}
					}
					first := split(c.String("samplers"))[:1]
					for _, m := range margins {
						runs = append(runs, with(base, func(o *lab.Options) { o.Samplers = first; o.Prune = true; o.PruneMargin = m }))
					}
				}
				if c.Bool("prior") {
					first := split(c.String("samplers"))[:1]
					runs = append(runs, with(base, func(o *lab.Options) { o.Samplers = first; o.Prune = true; o.Prior = priorOracle }))
				}
				if s := split(c.String("mo-samplers")); len(s) > 0 {
					runs = append(runs, with(base, func(o *lab.Options) { o.Samplers = s; o.Multi = true; o.NoFeasibility = true }))
					if c.Bool("prior") {
						runs = append(runs, with(base, func(o *lab.Options) { o.Samplers = s[:1]; o.Multi = true; o.Prune = true; o.Prior = priorOracle }))
					}
				}
				for _, opt := range runs {
					objSp := *sp
					if !opt.Multi {
						objSp.Objectives = sp.Objectives[:1]
					}
					truth, err := lab.TruthOf(grid, &objSp)
					if err != nil {
						return err
					}
					e.log.Info().Str("landscape", name).Strs("samplers", opt.Samplers).Bool("multi", opt.Multi).Bool("prune", opt.Prune).Msg("running studies")
					res, err := lab.Evaluate(c.Context, o, truth, sp, opt)
					if err != nil {
						return err
					}
					res.Markdown(e.stdout)
					e.stdout.Write([]byte("\n"))
					all = append(all, res)
				}
				if err := lab.PersistAll(c.String("cache"), o, priorOracle); err != nil {
					return err
				}
			}
			if p := c.String("json"); p != "" {
				b, err := json.MarshalIndent(all, "", " ")
				if err != nil {
					return err
				}
				return os.WriteFile(p, b, 0o644)
			}
			return nil
		},
	}
}

// labPerturbed compares the first sampler (pruning and infeasibility
// learning on) without and with the prior, each seed against its own
// perturbed reality.
func (e *env) labPerturbed(c *cli.Context, name string, sp *space.Space, prior *lab.Oracle, dir string) ([]*lab.Result, error) {
	samplers := split(c.String("samplers"))[:1]
	if c.Bool("multi") {
		if samplers = split(c.String("mo-samplers")); len(samplers) == 0 {
			return nil, usagef("--multi needs a two-objective sampler in --mo-samplers")
		}
		samplers = samplers[:1]
	}
	base := lab.Options{Expert: lab.Expert(name), Landscape: name, Seeds: c.Int("seeds"), Trials: c.Int("trials"), NoiseCV: c.Float64("noise"),
		Dir: dir, Log: e.log, Samplers: samplers, Prune: true, Cache: c.String("cache"), Multi: c.Bool("multi")}
	withPrior := base
	withPrior.Prior = prior
	e.log.Info().Str("landscape", name).Msg("running studies against perturbed realities, without and with the prior")
	res, err := lab.EvaluatePerturbed(c.Context, sp, []lab.Options{base, withPrior})
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		r.Markdown(e.stdout)
		e.stdout.Write([]byte("\n"))
	}
	return res, lab.PersistAll(c.String("cache"), prior)
}

// labOracles returns the truth's oracle (on --reality-cards when given)
// and the prior's, which simulates the built-in cards under --cards.
func labOracles(sp *space.Space, cardsFile, realityCards string) (truth, prior *lab.Oracle, err error) {
	cards := sim.DefaultCards()
	if err := addCards(cards, "cards", cardsFile); err != nil {
		return nil, nil, err
	}
	prior = lab.NewOracleOn(sp, cards)
	if realityCards == "" {
		return prior, prior, nil
	}
	real := sim.DefaultCards()
	if err := addCards(real, "cards", cardsFile); err != nil {
		return nil, nil, err
	}
	if err := addCards(real, "reality-cards", realityCards); err != nil {
		return nil, nil, err
	}
	return lab.NewOracleOn(sp, real), prior, nil
}

func with(o lab.Options, f func(*lab.Options)) lab.Options { f(&o); return o }

func split(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// checkSamplers rejects a sampler that does not exist or cannot serve its
// runs' objectives (one for --samplers, two for --mo-samplers) before any
// simulation starts.
func checkSamplers(c *cli.Context) error {
	runs := []struct {
		flag       string
		objectives int
	}{{"samplers", 1}, {"mo-samplers", 2}}
	for _, r := range runs {
		for _, name := range split(c.String(r.flag)) {
			if err := search.CheckSampler(name, r.objectives); err != nil {
				return usagef("--%s: %v", r.flag, err)
			}
		}
	}
	return nil
}
