package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// pdSetup is a disaggregated config resolved against the cards: each
// side's server as the aggregated simulator resolves it (its own
// batching, step model and memory plan), where each server sits, and
// the router in front.
type pdSetup struct {
	pd              engines.PD
	prefill, decode *setup
	pPlan, dPlan    memPlan
	pNode, dNode    []int
	// router is the router's service time per request (a FIFO queue);
	// handoff is the decode server's own request overhead when the router
	// sends it the request only once prefill is done (vLLM's proxy).
	router  float64
	handoff bool
}

// pdRouter is the engine's router's per-request service time (its
// model's router: SGLang's sgl-router, Rust; vLLM's disaggregation proxy,
// Python, which also forwards the decode request after prefill: handoff);
// ok is false for an engine that serves no PD. Estimates, not
// measurements (docs/sim.md, Disaggregated prefill/decode).
func pdRouter(engine string) (service float64, handoff, ok bool) {
	m, _ := engineModelOf(engine)
	return m.router.service, m.router.handoff, m.router.ok
}

// resolvePD resolves both sides of a PD config, each server on one node
// of the target, and checks the deployment fits the target's GPUs.
func (sm *Simulator) resolvePD(cfg space.Config, t space.Target) (*pdSetup, error) {
	pd, ok := engines.SplitPD(cfg)
	if !ok {
		return nil, invalid("sim: not a disaggregated config (disaggregation = \"pd\")")
	}
	engine := cfg.Engine()
	if engine == "" || engine == space.Default {
		engine = t.Engine
	}
	service, handoff, ok := pdRouter(engine)
	if !ok {
		return nil, invalid(fmt.Sprintf("disaggregation = \"pd\" is served by vLLM and SGLang, not %q", engine))
	}
	ps := &pdSetup{pd: pd, router: service, handoff: handoff}
	side := t
	side.GPUs = min(max(t.GPUs, 1), nodeSize(t))
	var err error
	if ps.prefill, ps.pPlan, err = sm.resolveSide(engines.RolePrefill, pd.Prefill, side); err != nil {
		return nil, err
	}
	if ps.decode, ps.dPlan, err = sm.resolveSide(engines.RoleDecode, pd.Decode, side); err != nil {
		return nil, err
	}
	pg, dg := serverGPUs(ps.prefill), serverGPUs(ps.decode)
	if need := pd.PrefillCount*pg + pd.DecodeCount*dg; need > max(t.GPUs, 1) {
		return nil, invalid(fmt.Sprintf("the disaggregated deployment needs %d GPUs (%d prefill × %d + %d decode × %d), the target has %d",
			need, pd.PrefillCount, pg, pd.DecodeCount, dg, max(t.GPUs, 1)))
	}
	ps.pNode, ps.dNode = placePD(pg, pd.PrefillCount, dg, pd.DecodeCount, nodeSize(t))
	return ps, nil
}

// resolveSide is one side's server: the aggregated resolve and memory
// plan, failures named after the role.
func (sm *Simulator) resolveSide(role string, cfg space.Config, t space.Target) (*setup, memPlan, error) {
	s, err := sm.resolve(cfg, t)
	if err != nil {
		return nil, memPlan{}, sideFailure(role, err)
	}
	p, err := s.plan()
	if err != nil {
		return nil, memPlan{}, sideFailure(role, err)
	}
	return s, p, nil
}

// sideFailure names the side in a refusal, keeping its class and the
// engine's log lines.
func sideFailure(role string, err error) error {
	var f *engines.Failure
	if errors.As(err, &f) {
		g := *f
		g.Message = role + " server: " + f.Message
		return &g
	}
	return fmt.Errorf("%s server: %w", role, err)
}

// serverGPUs is one server's GPUs: tp × dp, or tp when SGLang's DP
// attention lives inside its TP group.
func serverGPUs(s *setup) int {
	if s.dpAttn && s.eng.dpAttnInTP {
		return s.tp
	}
	return s.tp * s.dp
}

// evaluatePD is Evaluate for a disaggregated config.
func (sm *Simulator) evaluatePD(ctx context.Context, cfg space.Config, t space.Target, p bench.Profile, seed int64) ([]bench.Record, time.Duration, error) {
	ps, err := sm.resolvePD(cfg, t)
	if err != nil {
		return nil, 0, err
	}
	if ps.decode.spec.on && p.DatasetName() == bench.DatasetRandom {
		ps.decode.spec.acceptance *= 0.6 // as Evaluate: drafts predict natural text
	}
	reqs, err := workload(p)
	if err != nil {
		return nil, 0, err
	}
	d := newPDSim(ps, reqs, p, noiseFactor(seed, t.Sim.NoiseCV))
	end, err := d.run(ctx)
	if err != nil {
		return nil, 0, err
	}
	return d.records(), seconds(end), nil
}

// startupPD is launch → ready of a PD deployment: the servers start
// together, so the slower side's startup, plus the router's discovery of
// every server.
func (sm *Simulator) startupPD(cfg space.Config, t space.Target) time.Duration {
	pd, _ := engines.SplitPD(cfg)
	side := t
	side.GPUs = min(max(t.GPUs, 1), nodeSize(t))
	return max(sm.StartupTime(pd.Prefill, side), sm.StartupTime(pd.Decode, side)) + 5*time.Second
}
