package simprior

import (
	"context"
	"math"
	"reflect"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// simPrior predicts a config's objective values with the simulator on
// the given (unperturbed) cards, without noise.
type simPrior struct {
	sp     *space.Space
	target space.Target
	runner *objective.SimRunner
	// screening are the study's profiles shortened for screening.
	screening []bench.Profile
	memory    *MemoryPlan
	// onMachine remembers the predictions on scaled machines.
	onMachine *machineMemo
	// sim is the simulator on the unscaled cards; twins remembers
	// predictions by what the simulator resolves a config to (twins.go).
	sim   *sim.Simulator
	twins *machineMemo
}

// New returns the simulator prior for the study, or nil when the
// study turned it off or, by default, when the simulator has no card for
// the target's model or GPU (it could only guess).
func New(sp *space.Space, cards *sim.Cards) search.Prior {
	if sp.Study.Prior == space.PriorNone {
		return nil
	}
	if _, err := cards.Model(sp.Target.Model); err != nil {
		return nil
	}
	if _, err := cards.GPU(sp.Target.GPU); err != nil {
		return nil
	}
	t := sp.Target
	t.Sim.NoiseCV = 0
	sm := &sim.Simulator{Cards: cards}
	p := &simPrior{sp: sp, target: t, runner: simRunner(cards, sp.Objectives),
		screening: sim.ScreeningProfiles(sp.Profiles), memory: NewMemoryPlan(cards), onMachine: newMachineMemo(machineMemoSize),
		sim: sm, twins: newMachineMemo(machineMemoSize)}
	if reflect.DeepEqual(p.screening, sp.Profiles) {
		return p // short benchmarks: screening would simulate them twice
	}
	return screeningSimPrior{p}
}

// screeningSimPrior is the simulator prior of a study whose benchmarks
// screening shortens: it screens on them (search.Screener).
type screeningSimPrior struct{ *simPrior }

// Screen simulates the shortened screening profiles.
func (p screeningSimPrior) Screen(ctx context.Context, c space.Config) ([]float64, bool) {
	return p.simulate(ctx, c, true)
}

// Predict simulates every profile of the study. A config the simulator
// refuses (out of memory, invalid) is infeasible; so is one whose
// objectives it cannot produce. The simulation is CPU-bound, short on an
// idle machine but seconds on a loaded one: it stops with ctx.
func (p *simPrior) Predict(ctx context.Context, c space.Config) ([]float64, bool) {
	return p.simulate(ctx, c, false)
}

// MemoryFits asks the simulator's memory plan about c on a machine with
// mem times the card's GPU memory and overhead times its overheads
// (search.MemoryPlanner).
func (p *simPrior) MemoryFits(c space.Config, mem, overhead float64) (fits, ok bool) {
	return p.memory.Fits(c, p.target, mem, overhead)
}

// PredictOn simulates every profile on the cards scaled so: what the
// study's profiles would measure on a machine with mem times the card's
// usable memory and overhead times its overheads (search.MachinePredictor).
func (p *simPrior) PredictOn(ctx context.Context, c space.Config, mem, overhead float64) ([]float64, bool) {
	return p.simulateOn(ctx, c, memoKey{config: c.Key(), mem: mem, overhead: overhead})
}

// ScreenOn simulates the shortened screening profiles on the cards scaled
// so (search.MachineScreener).
func (p screeningSimPrior) ScreenOn(ctx context.Context, c space.Config, mem, overhead float64) ([]float64, bool) {
	return p.simulateOn(ctx, c, memoKey{config: c.Key(), mem: mem, overhead: overhead, screen: true})
}

// simulateOn simulates c's profiles on k's machine, or remembers it did;
// a simulation ctx cut short is not remembered (not a prediction).
func (p *simPrior) simulateOn(ctx context.Context, c space.Config, k memoKey) ([]float64, bool) {
	if v, ok, hit := p.onMachine.get(k); hit {
		return v, ok
	}
	sm := p.memory.at(k.mem, k.overhead)
	v, ok := p.simulateTwin(ctx, sm, simRunner(sm.Cards, p.sp.Objectives), c, k)
	if ctx.Err() == nil {
		p.onMachine.put(k, v, ok)
	}
	return v, ok
}

// simulate predicts c on the unscaled cards, on the screening profiles
// or the study's.
func (p *simPrior) simulate(ctx context.Context, c space.Config, screen bool) ([]float64, bool) {
	return p.simulateTwin(ctx, p.sim, p.runner, c, memoKey{screen: screen})
}

// profiles are the benchmarks a prediction simulates.
func (p *simPrior) profiles(screen bool) []bench.Profile {
	if screen {
		return p.screening
	}
	return p.sp.Profiles
}

// simulateWith runs one noiseless trial of c and reads its objectives.
func (p *simPrior) simulateWith(ctx context.Context, r *objective.SimRunner, c space.Config, profiles []bench.Profile) ([]float64, bool) {
	res, err := r.Run(ctx, objective.Trial{Config: c, Target: p.target, Profiles: profiles})
	if err != nil {
		return nil, false
	}
	vals := make([]float64, len(p.sp.Objectives))
	for i, o := range p.sp.Objectives {
		v, ok := res.Metrics[p.sp.ObjectiveProfile(o.Profile)][o.Metric]
		if !ok || math.IsNaN(v) { // a metric the simulator does not produce
			return nil, false
		}
		vals[i] = v
	}
	return vals, true
}
