package sim

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// withModel returns a simulator whose GLM-5.2 card is changed by f.
func withModel(t *testing.T, f func(*ModelCard)) *Simulator {
	t.Helper()
	c := DefaultCards()
	c.Models = append([]ModelCard(nil), c.Models...)
	for i := range c.Models {
		if c.Models[i].Name == "GLM-5.2" {
			f(&c.Models[i])
			return &Simulator{Cards: c}
		}
	}
	t.Fatal("no GLM-5.2 card")
	return nil
}

func tps(t *testing.T, sm *Simulator, cfg space.Config, tgt space.Target, p bench.Profile) float64 {
	t.Helper()
	recs, dur, err := sm.Evaluate(context.Background(), cfg, tgt, p, 0)
	if err != nil {
		t.Fatalf("Evaluate(%v): %v", cfg.Summary(), err)
	}
	return bench.Summarize(recs, dur, bench.SummaryOptions{}).TotalTokenThroughput
}

var dpDeepEP = space.Config{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true,
	"moe_a2a_backend": "deepep", "mem_fraction": 0.85, "max_running": int64(256)}

// Factors at exactly 1 simulate what a card without them does, bit for
// bit: the built-in cards' results (and the quickstart golden) stand.
func TestFactorsOfOneChangeNothing(t *testing.T) {
	ones := withModel(t, func(m *ModelCard) { m.ExpertEff, m.CommEff, m.MemOverhead, m.MTPAcceptance = 1, 1, 1, 0.8 })
	a, da, err := New().Evaluate(context.Background(), dpDeepEP, glmTarget, small(64), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, db, err := ones.Evaluate(context.Background(), dpDeepEP, glmTarget, small(64), 0)
	if err != nil {
		t.Fatal(err)
	}
	if da != db || !reflect.DeepEqual(a, b) {
		t.Errorf("factors of 1 changed the records (%v vs %v)", da, db)
	}
}

// Each factor moves what it names: faster experts and faster exchange
// raise throughput of an MoE config with DP attention; a larger memory
// overhead pushes a config that fits over the OOM line.
func TestModelFactorsMoveWhatTheyName(t *testing.T) {
	p := small(64)
	base := tps(t, New(), dpDeepEP, glmTarget, p)
	for _, tc := range []struct {
		name string
		f    func(*ModelCard)
	}{
		{"expert_eff", func(m *ModelCard) { m.ExpertEff = 2 }},
		{"comm_eff", func(m *ModelCard) { m.CommEff = 3 }},
	} {
		if got := tps(t, withModel(t, tc.f), dpDeepEP, glmTarget, p); !(got > base*1.02) {
			t.Errorf("%s raised: %.0f total TPS, base %.0f; want faster", tc.name, got, base)
		}
	}
	tight := space.Config{"engine": "sglang", "tp": int64(8), "mem_fraction": 0.9}
	if _, _, err := New().Evaluate(context.Background(), tight, glmTarget, p, 0); err != nil {
		t.Fatalf("at the built-in overhead: %v", err)
	}
	heavy := withModel(t, func(m *ModelCard) { m.MemOverhead = 3 })
	_, _, err := heavy.Evaluate(context.Background(), tight, glmTarget, p, 0)
	var f *engines.Failure
	if !errors.As(err, &f) || f.Class != engines.OOM {
		t.Errorf("mem_overhead 3 at mem_fraction 0.9: %v, want an OOM", err)
	}
}

func TestMTPAcceptanceComesFromTheCard(t *testing.T) {
	cfg := space.Config{"engine": "sglang", "tp": int64(8), "speculative_algorithm": "NEXTN"}
	p := small(8)
	low := tps(t, withModel(t, func(m *ModelCard) { m.MTPAcceptance = 0.3 }), cfg, glmTarget, p)
	high := tps(t, withModel(t, func(m *ModelCard) { m.MTPAcceptance = 0.9 }), cfg, glmTarget, p)
	if !(high > low*1.1) {
		t.Errorf("MTP acceptance 0.9: %.0f total TPS, 0.3: %.0f; want clearly faster", high, low)
	}
}

// Fits answers what Evaluate's startup would: the same OOM line.
func TestFitsIsEvaluatesStartup(t *testing.T) {
	tight := space.Config{"engine": "sglang", "tp": int64(8), "mem_fraction": 0.9}
	heavy := withModel(t, func(m *ModelCard) { m.MemOverhead = 3 })
	if err := New().Fits(tight, glmTarget); err != nil {
		t.Errorf("built-in overhead: %v", err)
	}
	err := heavy.Fits(tight, glmTarget)
	_, _, evalErr := heavy.Evaluate(context.Background(), tight, glmTarget, small(8), 0)
	var f *engines.Failure
	if !errors.As(err, &f) || f.Class != engines.OOM || evalErr == nil || err.Error() != evalErr.Error() {
		t.Errorf("Fits = %v, Evaluate = %v; want the same OOM", err, evalErr)
	}
}
