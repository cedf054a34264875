package main

import (
	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/preflight"
	"github.com/servetune/servetune/studies/studydir"
)

func dryRunFlag() cli.Flag {
	return &cli.BoolFlag{Name: "dry-run", Usage: "check what the study depends on (engine programs and versions, GPUs, checkpoint, storage, ports), print the first trials' commands and the simulator's estimate, and launch and write nothing (exit 5 when a check fails)"}
}

// errCheckFailed: a --dry-run check failed (exit 5).
type errCheckFailed struct{}

func (errCheckFailed) Error() string { return "a dry-run check failed" }

// dryRun wires the study's checks (studies/preflight) and prints them.
func (e *env) dryRun(c *cli.Context, sp *space.Space) error {
	url, err := storageURL(c.String("storage"), sp)
	if err != nil {
		return err
	}
	if url == "" && c.Command.Name == "worker" {
		return usagef("worker needs --storage postgres://… (or $%s)", storageEnv)
	}
	if c.Command.Name == "worker" {
		// As the worker would refuse them (it checked them only when run).
		if err := checkLeaseAndID(c.Duration("lease"), c.String("worker-id")); err != nil {
			return err
		}
	}
	// As the run would: one local trial at a time packs nothing, so
	// --gpus is refused there; its engines see what the environment shows.
	flag := c.String("gpus")
	if url == "" && c.Int("workers") <= 1 {
		if err := gpusNeedWorkers(c); err != nil {
			return err
		}
		flag = ""
	}
	devices, err := workerDevices(flag)
	if err != nil {
		return err
	}
	o := trialOptions(c, devices)
	if err := o.check(sp); err != nil {
		return err
	}
	// As the run would refuse them, read-only.
	for _, name := range c.StringSlice("warm-start") {
		if _, err := warmStart(c.Context, c.String("dir"), name, sp); err != nil {
			return err
		}
	}
	cards, err := studies.TargetCards(sp.Target)
	if err != nil {
		return err
	}
	in := preflight.Input{Space: sp, Devices: devices, Cards: cards, Render: renderAs(sp, sp.Target.Runner == "process"),
		Storage: preflight.Local(studydir.For(o.root, sp), preflight.System())}
	if url != "" {
		in.Storage = preflight.Postgres(url, sp.Study.Name)
	}
	in.Run = studies.RunOptions{Repeat: o.repeat, Confirm: o.confirm, Budget: o.budget, Workers: o.workers, Devices: o.devices,
		Enqueue: sp.Enqueue, ReuseKey: studies.RenderedKey(sp.Target)}
	// The study's kept predictions, from a scratch copy: a dry run
	// writes nothing.
	prior, screens, done := simprior.ForDryRun(simprior.New(sp, cards), sp, cards, studydir.For(o.root, sp).Path())
	defer done()
	in.Run.Search.Prior = prior
	if screens {
		e.log.Info().Msg("dry run: no prior screening is kept with this study yet: the simulator prior screens the space first, as the study's first run will (seconds to minutes); a dry run after a run reads the screening kept")
	}
	if o.prune {
		rule := search.DefaultPruneRule()
		in.Run.Prune = &rule
	}
	e.log.Info().Msg("dry run: checking this node, then simulating the study for its first trials and its cost")
	r, err := preflight.Run(c.Context, in, preflight.System())
	if err != nil {
		return err
	}
	if err := r.Text(e.stdout); err != nil {
		return err
	}
	if r.Failed() {
		return errCheckFailed{}
	}
	return nil
}
