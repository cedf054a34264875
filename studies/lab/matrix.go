package lab

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// Matrix is one `servetune lab` experiment: the landscapes and the studies
// run on each.
type Matrix struct {
	Landscapes []string
	// Samplers run on the first objective; the first of them also runs
	// with pruning (once per margin) and with the prior.
	Samplers []string
	// MOSamplers run on both objectives (none: skipped); the first also
	// with the prior.
	MOSamplers []string
	Seeds      int
	// FirstSeed is the first seed's number (>= 1; Options.FirstSeed).
	FirstSeed int
	Trials    int
	NoiseCV   float64
	// Confirm is the share of trials spent on noise repeats and
	// confirmations (Options.Confirm).
	Confirm float64
	Workers int
	Pruning bool
	// Margins are the pruning margins measured (none: the default rule's).
	Margins []float64
	Prior   bool
	// Perturbed runs, instead, each seed against its own reality from the
	// widened family: every sampler (of MOSamplers, with Multi) with
	// pruning and without the prior, then the first with it.
	Perturbed bool
	// HeldOut, with Perturbed, applies this held-out kind of simulator
	// error to every seed's reality (HeldOutKinds; "": none).
	HeldOut string
	Multi   bool
	// Cache keeps every simulated outcome in this directory between runs.
	Cache string
	// Cards, when set, replace the built-in cards for the truth and the
	// prior alike (--cards).
	Cards *sim.Cards
	// RealityCards, when set, replace Cards (or the built-in cards) for
	// the truth only; the prior keeps Cards.
	RealityCards *sim.Cards
	// Trace records each run's trials in its result (Options.Trace).
	Trace bool
}

// UsageError is a bad choice of the caller's (an unknown landscape): the
// command's usage error.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Run runs the matrix, writing each result's table to w as it is done.
func (m Matrix) Run(ctx context.Context, log zerolog.Logger, w io.Writer) ([]*Result, error) {
	dir, err := os.MkdirTemp("", "servetune-lab-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var all []*Result
	for _, name := range m.Landscapes {
		res, err := m.landscape(ctx, name, dir, log, w)
		if err != nil {
			return nil, err
		}
		all = append(all, res...)
	}
	return all, nil
}

// landscape runs the matrix on one landscape.
func (m Matrix) landscape(ctx context.Context, name, dir string, log zerolog.Logger, w io.Writer) ([]*Result, error) {
	sp, err := Load(name)
	if err != nil {
		return nil, UsageError{err}
	}
	o, prior := m.oracles(sp)
	if err := RestoreAll(m.Cache, o, prior); err != nil {
		return nil, err
	}
	if m.Perturbed {
		return m.perturbed(ctx, name, sp, prior, dir, log, w)
	}
	log.Info().Str("landscape", name).Msg("simulating every point of the space (cached for all runs)")
	grid, err := o.Exhaust(ctx)
	if err != nil {
		return nil, err
	}
	if err := PersistAll(m.Cache, o); err != nil {
		return nil, err
	}
	var out []*Result
	for _, opt := range m.Runs(name, prior, dir, log) {
		res, err := evaluateOn(ctx, o, grid, sp, opt)
		if err != nil {
			return nil, err
		}
		res.Markdown(w)
		io.WriteString(w, "\n")
		out = append(out, res)
	}
	return out, PersistAll(m.Cache, o, prior)
}

// evaluateOn runs one set of studies against the grid's truth on the
// objectives opt scores.
func evaluateOn(ctx context.Context, o *Oracle, grid *Truth0, sp *space.Space, opt Options) (*Result, error) {
	objSp := *sp
	if !opt.Multi {
		objSp.Objectives = sp.Objectives[:1]
	}
	truth, err := TruthOf(grid, &objSp)
	if err != nil {
		return nil, err
	}
	opt.Log.Info().Str("landscape", opt.Landscape).Strs("samplers", opt.Samplers).Bool("multi", opt.Multi).Bool("prune", opt.Prune).Msg("running studies")
	return Evaluate(ctx, o, truth, sp, opt)
}

// Runs lists the studies the matrix makes on one landscape, in order: the
// samplers without infeasibility learning; the first with pruning at each
// margin; the first with the prior; the two-objective samplers, and the
// first of them with the prior.
func (m Matrix) Runs(name string, prior *Oracle, dir string, log zerolog.Logger) []Options {
	base := Options{Expert: Expert(name), Landscape: name, Seeds: m.Seeds, FirstSeed: m.FirstSeed, Trials: m.Trials, NoiseCV: m.NoiseCV, Confirm: m.Confirm, Dir: dir, Log: log, Workers: m.Workers, Trace: m.Trace}
	runs := []Options{with(base, func(o *Options) { o.Samplers = m.Samplers; o.NoFeasibility = true })}
	first := m.Samplers[:1]
	if m.Pruning {
		margins := m.Margins
		if len(margins) == 0 {
			margins = []float64{0}
		}
		for _, mg := range margins {
			runs = append(runs, with(base, func(o *Options) { o.Samplers = first; o.Prune = true; o.PruneMargin = mg }))
		}
	}
	if m.Prior {
		runs = append(runs, with(base, func(o *Options) { o.Samplers = first; o.Prune = true; o.Prior = prior }))
	}
	if s := m.MOSamplers; len(s) > 0 {
		runs = append(runs, with(base, func(o *Options) { o.Samplers = s; o.Multi = true; o.NoFeasibility = true }))
		if m.Prior {
			runs = append(runs, with(base, func(o *Options) { o.Samplers = s[:1]; o.Multi = true; o.Prune = true; o.Prior = prior }))
		}
	}
	return runs
}

// perturbed compares the samplers (pruning and infeasibility learning
// on) without the prior, and the first with it, each seed against its
// own reality.
func (m Matrix) perturbed(ctx context.Context, name string, sp *space.Space, prior *Oracle, dir string, log zerolog.Logger, w io.Writer) ([]*Result, error) {
	samplers := m.Samplers
	if m.Multi {
		if len(m.MOSamplers) == 0 {
			return nil, UsageError{errors.New("--multi needs a two-objective sampler in --mo-samplers")}
		}
		samplers = m.MOSamplers
	}
	base := Options{Expert: Expert(name), Landscape: name, Seeds: m.Seeds, FirstSeed: m.FirstSeed, Trials: m.Trials, NoiseCV: m.NoiseCV, Confirm: m.Confirm,
		Dir: dir, Log: log, Samplers: samplers, Prune: true, Cache: m.Cache, Multi: m.Multi, Trace: m.Trace, HeldOut: m.HeldOut}
	withPrior := base
	withPrior.Samplers, withPrior.Prior = samplers[:1], prior
	log.Info().Str("landscape", name).Str("held_out", m.HeldOut).Msg("running studies against perturbed realities, without and with the prior")
	res, err := EvaluatePerturbed(ctx, sp, []Options{base, withPrior})
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		r.Markdown(w)
		io.WriteString(w, "\n")
	}
	return res, PersistAll(m.Cache, prior)
}

// oracles are the truth's oracle (on RealityCards when set) and the
// prior's, which simulates Cards (the built-in cards when nil).
func (m Matrix) oracles(sp *space.Space) (truth, prior *Oracle) {
	cards := m.Cards
	if cards == nil {
		cards = sim.DefaultCards()
	}
	prior = NewOracleOn(sp, cards)
	if m.RealityCards == nil {
		return prior, prior
	}
	return NewOracleOn(sp, m.RealityCards), prior
}

func with(o Options, f func(*Options)) Options { f(&o); return o }
