package lab

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
)

// outcome is one config's noiseless measurement on the landscape's first
// profile.
type outcome struct {
	metrics map[string]float64
	// checkpoints are the benchmark's reports at each checkpoint, once
	// replayed is set: summarising the nine checkpoints cost a sixth of a
	// config's evaluation, and only configs a study runs replay them (the
	// exhaustive grid needs the final metrics).
	checkpoints []objective.Checkpoint
	replayed    bool
	gpuSeconds  float64
	err         error
}

// Oracle simulates each config once and remembers it.
type Oracle struct {
	sp     *space.Space
	cards  *sim.Cards
	skew   *sim.Skew
	sim    *sim.Simulator
	runner *objective.SimRunner
	mu     sync.Mutex
	cache  map[string]*outcome
	// twins maps what the simulator resolves a config to (twinKey) to
	// its outcome: two in five of the GLM-5.2 grid's configs differ only
	// in knobs their engine ignores, and simulate as their twin does.
	twins map[string]*outcome
	// screening is the oracle on the screening profiles, made on first use.
	screening *Oracle
	// machines are the prior's oracles on scaled machines (prior_machine.go).
	machines machines
	// dir is the lab cache the oracle was restored from ("": none), which
	// its machines are restored from and persisted to as well.
	dir string
	// heldOut, when set, is the held-out error's factor on every outcome
	// Eval and Replay give (heldout.go). The cache and the twins keep the
	// family reality's outcomes, so a lab cache serves every kind alike.
	heldOut func(space.Config) float64
	// held are the outcomes under heldOut by config key, each with the
	// family outcome it was made from (a replay replaces that one).
	held map[string]heldOutcome
}

// heldOutcome is a config's outcome under the held-out factor and the
// family outcome it scales.
type heldOutcome struct{ from, out *outcome }

// NewOracle returns an oracle for a landscape on the embedded cards.
func NewOracle(sp *space.Space) *Oracle { return NewOracleOn(sp, sim.DefaultCards()) }

// NewOracleOn returns an oracle whose reality is the given cards (e.g.
// --reality-cards, or a perturbed family member).
func NewOracleOn(sp *space.Space, cards *sim.Cards) *Oracle { return newOracle(sp, cards, nil) }

// NewRealityOracle returns an oracle whose reality is r: its cards, its
// engines' skew and its own request sequences (every profile's seed
// shifted), and its held-out error when it has one.
func NewRealityOracle(sp *space.Space, r Reality) *Oracle {
	shifted := *sp
	shifted.Profiles = append(shifted.Profiles[:0:0], sp.Profiles...)
	for i := range shifted.Profiles {
		shifted.Profiles[i].Seed += r.ProfileShift
	}
	o := newOracle(&shifted, r.Cards, r.Skew)
	o.heldOut = r.HeldOut
	return o
}

func newOracle(sp *space.Space, cards *sim.Cards, skew *sim.Skew) *Oracle {
	sm := &sim.Simulator{Cards: cards, Skew: skew}
	return &Oracle{sp: sp, cards: cards, skew: skew, sim: sm, runner: objective.NewSimRunner(objective.WithSimulator(sm)), cache: map[string]*outcome{}, twins: map[string]*outcome{}}
}

// Screening is the oracle of the same cards on the shortened screening
// profiles (sim.ScreeningProfiles), as the simulator prior screens; o
// itself when screening does not shorten them.
func (o *Oracle) Screening() *Oracle {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.screening == nil {
		sp := *o.sp
		sp.Profiles = sim.ScreeningProfiles(o.sp.Profiles)
		o.screening = o
		if !reflect.DeepEqual(sp.Profiles, o.sp.Profiles) {
			o.screening = newOracle(&sp, o.cards, o.skew)
			o.screening.heldOut = o.heldOut
		}
	}
	return o.screening
}

// Eval returns the config's noiseless outcome; its checkpoints may be
// absent (Replay has them).
func (o *Oracle) Eval(ctx context.Context, c space.Config) *outcome {
	return o.eval(ctx, c, false)
}

// Replay returns the config's noiseless outcome with its checkpoints.
func (o *Oracle) Replay(ctx context.Context, c space.Config) *outcome {
	return o.eval(ctx, c, true)
}

func (o *Oracle) eval(ctx context.Context, c space.Config, replay bool) *outcome {
	out := o.family(ctx, c, replay)
	if o.heldOut == nil {
		return out
	}
	key := c.Key()
	o.mu.Lock()
	defer o.mu.Unlock()
	if h, ok := o.held[key]; ok && h.from == out {
		return h.out
	}
	h := heldOutcome{from: out, out: heldOutOutcome(out, o.heldOut(c))}
	if o.held == nil {
		o.held = map[string]heldOutcome{}
	}
	if !interrupted(out.err) {
		o.held[key] = h
	}
	return h.out
}

// family is the config's outcome in the family reality, before any
// held-out error: what the cache and the twins keep.
func (o *Oracle) family(ctx context.Context, c space.Config, replay bool) *outcome {
	key := c.Key()
	o.mu.Lock()
	out, ok := o.cache[key]
	o.mu.Unlock()
	if ok && (!replay || out.replayed || out.err != nil) {
		return out // a failed config has no checkpoints to replay
	}
	twin, hasTwin := o.twinKey(c)
	o.mu.Lock()
	out, ok = o.twins[twin]
	o.mu.Unlock()
	if !hasTwin || !ok || (replay && !out.replayed && out.err == nil) {
		out = o.simulate(ctx, c, replay)
	}
	o.mu.Lock()
	o.cache[key] = out
	if hasTwin && !interrupted(out.err) {
		o.twins[twin] = out
	}
	o.mu.Unlock()
	return out
}

// twinKey is what decides the config's outcome on this oracle: the
// simulator's resolved setup (sim.Fingerprint), the GPUs it holds and
// its start-up; false when the simulator has no fingerprint for it.
func (o *Oracle) twinKey(c space.Config) (string, bool) {
	fp, ok := o.sim.Fingerprint(c, o.sp.Target)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s|%d|%d", fp, o.sim.GPUs(c, o.sp.Target), o.sim.StartupTime(c, o.sp.Target)), true
}

// interrupted is whether err stopped a simulation rather than came from it.
func interrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// simulate runs the config on the landscape's profiles, replaying the
// checkpoints to a judge that never stops when replay is set (the same
// run otherwise: the judge only observes).
func (o *Oracle) simulate(ctx context.Context, c space.Config, replay bool) *outcome {
	t := objective.Trial{Config: c, Target: o.sp.Target, Profiles: o.sp.Profiles, Seed: 1}
	if replay {
		t.Judge = func(objective.Checkpoint) objective.Verdict { return objective.Verdict{} }
	}
	res, err := o.runner.Run(ctx, t)
	out := &outcome{gpuSeconds: res.GPUSeconds, err: err, checkpoints: res.Checkpoints, replayed: replay}
	if err == nil {
		out.metrics = res.Metrics[o.sp.Profiles[0].Name]
	}
	return out
}

// Truth0 is the exhaustive grid, simulated.
type Truth0 struct {
	Configs  []space.Config
	Outcomes []*outcome
}

// Exhaust simulates every point of the space that satisfies its rules,
// on all cores.
func (o *Oracle) Exhaust(ctx context.Context) (*Truth0, error) {
	cfgs := ruleGrid(o.sp)
	outs := make([]*outcome, len(cfgs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i] = o.Eval(ctx, cfgs[i])
			}
		}()
	}
	for i := range cfgs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return &Truth0{Configs: cfgs, Outcomes: outs}, ctx.Err()
}

// noisyRunner serves trials from the oracle with the lab's noise model
// (noise.go): per-metric, heavy-tailed factors around a slow drift of
// the machine, so throughputs are divided and latencies multiplied.
type noisyRunner struct {
	o    *Oracle
	cv   float64
	seed int64
}

func (r *noisyRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	out := r.o.Replay(ctx, t.Config)
	res := objective.Result{GPUSeconds: out.gpuSeconds}
	if out.err != nil {
		if _, ok := engines.AsFailure(out.err); ok {
			return res, out.err
		}
		return res, out.err
	}
	f := trialNoise(r.seed, t.Number, r.cv)
	name := t.Profiles[0].Name
	for _, cp := range out.checkpoints {
		if t.Report(&res, name, cp.Step, noisy(cp.Metrics, f)) {
			res.Metrics = map[string]map[string]float64{name: noisy(cp.Metrics, f)}
			res.GPUSeconds = prunedBill(out.gpuSeconds, r.o.startupGPUSeconds(t.Config), cp.Step, bench.Checkpoints)
			return res, objective.ErrPruned
		}
	}
	res.Metrics = map[string]map[string]float64{name: noisy(out.metrics, f)}
	return res, nil
}

// startupGPUSeconds is the GPU time the config's engine start-up costs
// before the benchmark sends its first request.
func (o *Oracle) startupGPUSeconds(c space.Config) float64 {
	return o.sim.StartupTime(c, o.sp.Target).Seconds() * float64(o.sim.GPUs(c, o.sp.Target))
}

// prunedBill is the GPU time of a trial stopped at checkpoint step of
// steps, as `servetune run` bills it: the engine start-up in full (it was
// spent before the first request), and the share of the benchmark the
// finished requests took (they finish at a roughly even pace). Prorating
// the start-up too would make every pruning row look cheaper than it is.
func prunedBill(total, startup float64, step, steps int) float64 {
	startup = min(max(startup, 0), total)
	if steps <= 0 {
		return total
	}
	share := min(max(float64(step)/float64(steps), 0), 1)
	return startup + (total-startup)*share
}

var errNoTruth = errors.New("no feasible config in the landscape")
