package preflight

import (
	"context"
	"path/filepath"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// Input is what a dry run checks: the study as the run would start it.
type Input struct {
	Space *space.Space
	// Devices are the GPUs the run packs trials onto (--gpus or the
	// scheduler's); empty: the first target.gpus.
	Devices []string
	Storage Storage
	// Run holds the run's options (workers, budget, pruning, prior,
	// enqueued configs); the estimate runs the study with them.
	Run studies.RunOptions
	// Cards are the simulator's cards for the estimate.
	Cards *sim.Cards
	// Render is a config's serving command as the report shows it.
	Render func(space.Config) (string, error)
	// Proposals is how many trials after the baseline to show (default 3).
	Proposals int
}

// Run checks everything and estimates the study.
func Run(ctx context.Context, in Input, w World) (Report, error) {
	if in.Proposals == 0 {
		in.Proposals = 3
	}
	r := Report{Checks: checks(ctx, in, w)}
	est, first, why, err := estimate(ctx, in)
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	if err != nil {
		// The simulated study fails where the real one would: a config
		// that needs more GPUs than the run has, a space the engines refuse.
		r.Checks = append(r.Checks, fail("study", "%s%v", studyFailure(in.Space), err))
	}
	if why != "" {
		why += cardHint(in, w)
	}
	r.Estimate, r.Commands, r.NoEstimate = est, first, why
	if r.Commands == nil {
		r.Commands = planned(in)
	}
	return r, nil
}

// studyFailure heads a failure the study's simulated copy met: a
// simulated study's own, or, for real engines, the real study's — the
// estimate only found it first.
func studyFailure(sp *space.Space) string {
	if sp.Target.Runner == "sim" {
		return "simulated study: "
	}
	return "the study would stop (found by simulating it for the estimate): "
}

// cardHint offers servetune card when the model has no card and is a
// local checkpoint with a config.json, which is all card needs.
func cardHint(in Input, w World) string {
	m := in.Space.Target.Model
	if _, err := in.Cards.Model(m); err == nil {
		return ""
	}
	if _, err := w.Stat(filepath.Join(m, "config.json")); err != nil {
		return ""
	}
	return "; make one from its config.json: servetune card " + m
}

// planned are the trials known without the simulator: the baseline and
// the enqueued configs.
func planned(in Input) []Proposal {
	var out []Proposal
	add := func(c space.Config, origin string) {
		cmd, err := in.Render(c)
		if err != nil {
			cmd = "(cannot render: " + err.Error() + ")"
		}
		out = append(out, Proposal{Trial: len(out) + 1, Origin: origin, Command: cmd})
	}
	if in.Space.Baseline != nil {
		add(in.Space.Baseline, "baseline")
	}
	for _, c := range append(append([]space.Config(nil), in.Space.Enqueue...), in.Run.Enqueue...) {
		if len(out) > in.Proposals {
			break
		}
		add(c, "enqueued")
	}
	return out
}

// checks runs every check that applies: a simulated study launches no
// engine and needs no GPU, checkpoint or port.
func checks(ctx context.Context, in Input, w World) []Check {
	sp := in.Space
	var out []Check
	if sp.Target.Runner == "sim" {
		out = append(out, ok("engines", "simulated study: no engine is launched"))
	} else {
		out = append(out, checkEngines(ctx, sp, w)...)
		if usesGPUs(sp) {
			out = append(out, checkGPUs(ctx, sp, in.Devices, w))
		}
		out = append(out, checkCheckpoints(sp, w)...)
		out = append(out, checkPorts(sp, in.Run.Workers, w))
	}
	return append(out, checkStorage(ctx, in.Storage))
}
