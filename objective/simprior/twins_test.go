package simprior_test

import (
	"context"
	"slices"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/lab"
)

// Configs the simulator resolves alike (a DeepEP mode without DeepEP)
// are simulated once and predicted the same numbers a prior of their own
// simulates; a config that resolves otherwise is simulated on its own.
func TestSimPriorSimulatesTwinsOnce(t *testing.T) {
	sp, err := lab.Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	c := sp.WithTargetEngine(lab.Expert("glm52"))
	c["engine"], c["moe_a2a_backend"] = "sglang", "none"
	twin := c.Clone()
	twin["deepep_mode"] = "low_latency"
	other := c.Clone()
	other["max_running"] = int64(64)
	sm := sim.New()
	fp, ok := sm.Fingerprint(c, sp.Target)
	fpTwin, _ := sm.Fingerprint(twin, sp.Target)
	fpOther, _ := sm.Fingerprint(other, sp.Target)
	if !ok || fp != fpTwin || fp == fpOther {
		t.Fatalf("fingerprints: twin equal %v, other equal %v (ok %v): the check tells nothing", fp == fpTwin, fp == fpOther, ok)
	}
	ctx := context.Background()
	fresh := func(c space.Config) []float64 {
		v, _ := simprior.New(sp, sim.DefaultCards()).Predict(ctx, c)
		return v
	}
	p := simprior.New(sp, sim.DefaultCards())
	for i, k := range []space.Config{c, twin, other} {
		got, ok := p.Predict(ctx, k)
		if want := fresh(k); !ok || !slices.Equal(got, want) {
			t.Errorf("config %d: %v %v, a prior of its own %v", i, got, ok, want)
		}
	}
	if n := simprior.TwinMemoLen(p); n != 2 {
		t.Errorf("%d simulations remembered for a config, its twin and another, want 2", n)
	}
}

// The prior leaves out the inter-token gaps and the peaks only where no
// objective reads them: an ITL or a peak objective is still predicted.
func TestSimPriorPredictsGapObjectives(t *testing.T) {
	sp, err := lab.Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	for _, metric := range []string{"p99_itl_ms", "peak_output_tps"} {
		with := *sp
		with.Objectives = append(slices.Clone(sp.Objectives), space.Objective{Metric: metric, Direction: "minimize"})
		p := simprior.New(&with, sim.DefaultCards())
		v, ok := p.(search.Screener).Screen(context.Background(), sp.WithTargetEngine(lab.Expert("glm52")))
		if !ok || len(v) != len(with.Objectives) || !(v[len(v)-1] > 0) {
			t.Errorf("screening with a %s objective: %v %v", metric, v, ok)
		}
	}
}
