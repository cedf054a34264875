package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// Simulator evaluates configs against a card catalogue.
type Simulator struct {
	Cards *Cards
	// Coef overrides the vLLM step model's coefficients (FittedVLLM), for
	// fitting them; nil keeps the fitted ones.
	Coef *Coefficients
	// Skew, when set, moves the engines away from their fit (skew.go).
	Skew *Skew
	// NoGaps leaves the inter-token gaps out of the records (ITL nil):
	// for a caller that reads no ITL or peak-throughput metric (the
	// prior), which then costs neither the gaps' memory — 8 bytes per
	// token — nor the summary's walk over them. Aggregated configs only;
	// every other field of the records is the same.
	NoGaps bool
}

// New returns a simulator over the embedded cards.
func New() *Simulator { return &Simulator{Cards: DefaultCards()} }

// Evaluate simulates serving profile p with config cfg on target t and
// returns per-request records and the benchmark duration, both on the
// simulated clock. A config the engine would refuse returns an error
// wrapping *engines.Failure (OOM or InvalidConfig) with the engine's log
// lines. The same seed gives the same result; t.Sim.NoiseCV > 0 adds
// seed-dependent measurement noise.
func Evaluate(ctx context.Context, cfg space.Config, t space.Target, p bench.Profile, seed int64) ([]bench.Record, time.Duration, error) {
	return New().Evaluate(ctx, cfg, t, p, seed)
}

// Evaluate is the package-level Evaluate on this simulator's cards.
func (sm *Simulator) Evaluate(ctx context.Context, cfg space.Config, t space.Target, p bench.Profile, seed int64) ([]bench.Record, time.Duration, error) {
	recs, dur, _, err := sm.evaluate(ctx, cfg, t, p, seed, false)
	return recs, dur, err
}

// EvaluateTrace is Evaluate that also returns the step features of each
// request (nil entries for failed ones) and of the whole run, for fitting
// Coefficients.
func (sm *Simulator) EvaluateTrace(ctx context.Context, cfg space.Config, t space.Target, p bench.Profile, seed int64) ([]bench.Record, time.Duration, *Trace, error) {
	return sm.evaluate(ctx, cfg, t, p, seed, true)
}

func (sm *Simulator) evaluate(ctx context.Context, cfg space.Config, t space.Target, p bench.Profile, seed int64, trace bool) ([]bench.Record, time.Duration, *Trace, error) {
	if engines.IsPD(cfg) { // pd.go: a prefill pool and a decode pool
		if trace {
			return nil, 0, nil, errors.New("sim: step features are not traced for disaggregated configs")
		}
		recs, dur, err := sm.evaluatePD(ctx, cfg, t, p, seed)
		return recs, dur, nil, err
	}
	s, err := sm.resolve(cfg, t)
	if err != nil {
		return nil, 0, nil, err
	}
	plan, err := s.plan()
	if err != nil {
		return nil, 0, nil, err
	}
	if s.spec.on && p.DatasetName() == bench.DatasetRandom {
		// Drafts predict natural text; random-token prompts make the
		// target's continuations much harder to guess.
		s.spec.acceptance *= 0.6
	}
	reqs, err := workload(p)
	if err != nil {
		return nil, 0, nil, err
	}
	pf := newPerf(s, plan)
	sc := newSchedulerGaps(s, pf, plan, reqs, p, noiseFactor(seed, t.Sim.NoiseCV), !sm.NoGaps)
	if trace {
		sc.tracing = true
		for _, r := range sc.reqs {
			r.tr = &reqTrace{}
		}
	}
	end, err := sc.run(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	var tr *Trace
	if trace {
		tr = sc.trace(end)
	}
	return sc.records(), seconds(end), tr, nil
}

// resolve is the package resolve with this simulator's coefficients.
func (sm *Simulator) resolve(cfg space.Config, t space.Target) (*setup, error) {
	s, err := resolve(sm.Cards, cfg, t)
	if err == nil && sm.Coef != nil {
		s.coef = *sm.Coef
	}
	if err == nil {
		sm.Skew.apply(s)
	}
	return s, err
}

// noiseFactor is a log-normal multiplier on every step time with the
// given coefficient of variation and mean 1.
func noiseFactor(seed int64, cv float64) float64 {
	if cv <= 0 {
		return 1
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x401e))
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	return math.Exp(sigma*rng.NormFloat64() - sigma*sigma/2)
}

// StartupTime estimates launch → ready for the config: weight loading,
// CUDA-graph capture, torch.compile, warm-up. Configs that fail at
// startup still spend roughly this long before failing.
func (sm *Simulator) StartupTime(cfg space.Config, t space.Target) time.Duration {
	if engines.IsPD(cfg) {
		return sm.startupPD(cfg, t)
	}
	s, err := resolve(sm.Cards, cfg, t)
	if err != nil {
		return 5 * time.Second // argument checks fail before anything loads
	}
	sec := 15 + s.weightsPerGPU()/(s.eng.loadGBs*1e9)
	if s.cudaGraph {
		sec += 2 + float64(s.graphBS)/16*0.25
	}
	if s.compile {
		sec += 60
	}
	if s.deepep {
		sec += 20
	}
	return seconds(sec)
}

// GPUs is how many GPUs the config occupies on the target (the
// target's gpus_per_trial where it applies, else the engine's own rule,
// as for a real engine; a config the simulator refuses holds the target).
func (sm *Simulator) GPUs(cfg space.Config, t space.Target) int {
	if n, ok := t.TrialGPUs(cfg); ok {
		return n
	}
	if err := sm.resolves(cfg, t); err != nil {
		return max(t.GPUs, 1)
	}
	return engines.GPUs(cfg, t)
}

// resolves is nil when the simulator resolves the config's knobs
// (both sides' of a disaggregated config).
func (sm *Simulator) resolves(cfg space.Config, t space.Target) error {
	if engines.IsPD(cfg) {
		_, err := sm.resolvePD(cfg, t)
		return err
	}
	_, err := resolve(sm.Cards, cfg, t)
	return err
}

// Fingerprint is a canonical text of what the simulator resolves the
// config to on target t — every engine default, card and knob value
// Evaluate and StartupTime read — so that configs with equal fingerprints
// simulate to equal results on the same profiles and seed (their GPU
// counts aside, which follow the config). False for disaggregated configs
// and configs the simulator refuses: those have no such summary.
func (sm *Simulator) Fingerprint(cfg space.Config, t space.Target) (string, bool) {
	if engines.IsPD(cfg) {
		return "", false
	}
	s, err := sm.resolve(cfg, t)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%#v", *s), true
}
