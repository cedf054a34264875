package optunadb

import (
	"context"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

const fixtureSpace = `
[study]
name = "interop"
n_trials = 8
[target]
model = "m"
engine = "sglang"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[[objectives]]
metric = "mean_tpot_ms"
direction = "minimize"
[[constraints]]
expr = "mean_tpot_ms <= 60"
[profiles]
run = ["balanced", "chat"]
[params.max_running]
low = 16
high = 512
log = true
[params.mem_fraction]
low = 0.70
high = 0.90
step = 0.05
[params.chunked_prefill]
values = ["default", 8192, 16384]
[params.enable_dp_attention]
values = [false, true]
[baseline]
max_running = 64
`

func fixtureSpaceParsed(t *testing.T) *space.Space {
	t.Helper()
	sp, err := space.Parse(context.Background(), "interop.toml", fixtureSpace, space.Options{Metric: bench.KnownMetric, Profile: func(n string) (bench.Profile, bool) { return bench.Profile{Name: n}, true }})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// fixtureTrials holds every state servetune records, a knob value outside
// its declared domain (max_running 600) and a knob absent from a config.
func fixtureTrials() []store.Trial {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(n int) (time.Time, time.Time) {
		return t0.Add(time.Duration(n) * time.Minute), t0.Add(time.Duration(n)*time.Minute + 50*time.Second)
	}
	m := func(tps, tpot float64) map[string]map[string]float64 {
		return map[string]map[string]float64{"balanced": {"total_tps": tps, "mean_tpot_ms": tpot}, "chat": {"total_tps": tps / 2}}
	}
	cfg := func(mr int64, mf float64, cp any, dpa bool) space.Config {
		return space.Config{"max_running": mr, "mem_fraction": mf, "chunked_prefill": cp, "enable_dp_attention": dpa}
	}
	mk := func(n int, st store.State, origin string, c space.Config, met map[string]map[string]float64) store.Trial {
		s, e := at(n)
		return store.Trial{Number: n, State: st, Origin: origin, Config: c, Metrics: met, Start: s, End: e, GPUSeconds: 400}
	}
	ts := []store.Trial{
		mk(1, store.Complete, "baseline", space.Config{"max_running": int64(64)}, m(5000, 40)),
		mk(2, store.Complete, "sampler", cfg(256, 0.85, int64(8192), true), m(9000, 55)),
		mk(3, store.Complete, "sampler", cfg(512, 0.9, "default", true), m(12000, 80)),
		mk(4, store.Complete, "sampler", cfg(32, 0.7, int64(16384), false), m(3000, 30)),
		mk(5, store.Pruned, "sampler", cfg(128, 0.75, "default", false), m(2000, 45)),
		mk(6, store.Infeasible, "sampler", cfg(600, 0.9, int64(16384), true), nil),
		mk(7, store.Failed, "sampler", cfg(64, 0.8, "default", true), nil),
		mk(8, store.Interrupted, "sampler", cfg(96, 0.8, int64(8192), false), nil),
		mk(9, store.Running, "sampler", cfg(200, 0.85, "default", false), nil),
	}
	ts[4].Intermediate = []search.Checkpoint{{Profile: "balanced", Step: 1, Values: []float64{1500, 50}}, {Profile: "balanced", Step: 2, Values: []float64{1800, 47}}}
	ts[5].Failure = &engines.Failure{Class: "oom", Message: "CUDA out of memory"}
	ts[6].Failure = &engines.Failure{Class: "crash", Message: "exit status 1"}
	ts[7].Reason = "servetune was stopped"
	ts[8].End = time.Time{}
	return ts
}
