package studies

import (
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// Pruning respects the noise the study measured: with a config measured
// twice 30% apart, a trial 25% behind an incumbent is within the noise
// and runs on; without repeats the default margin decides.
func TestPruneMarginFollowsMeasuredNoise(t *testing.T) {
	sp, trials := guardFixture(t)
	def := search.DefaultPruneRule()
	if r := noiseAware(&def, sp, trials); r.Margin != def.Margin {
		t.Errorf("no repeats: margin %v, want the rule's %v", r.Margin, def.Margin)
	}
	if noiseAware(nil, sp, trials) != nil {
		t.Error("no rule (--no-prune) gained one")
	}
	again := trials[2]
	again.Number, again.Origin = 4, "repeat"
	again.Metrics = map[string]map[string]float64{"balanced": {"total_tps": 9000 * 1.35}, "sharegpt": {"total_tps": 5900}}
	noisy := append(append([]Trial(nil), trials...), again)
	cv, measured := noiseCV(sp, noisy)
	r := noiseAware(&def, sp, noisy)
	if !measured || r.Margin != noiseMargins*cv || r.Margin <= def.Margin {
		t.Fatalf("measured CV %v (%v): margin %v, want %v", cv, measured, r.Margin, noiseMargins*cv)
	}
	cur := search.Checkpoint{Profile: "balanced", Step: 5, Values: []float64{9000}}
	inc := search.Checkpoint{Profile: "balanced", Step: 5, Values: []float64{12000}}
	objs := []space.Objective{sp.Objectives[0]}
	if prune, _ := def.ShouldPrune(cur, []search.Checkpoint{inc}, objs); !prune {
		t.Fatal("the fixture must be pruned under the default margin")
	}
	if prune, why := r.ShouldPrune(cur, []search.Checkpoint{inc}, objs); prune {
		t.Errorf("pruned within the measured noise: %s", why)
	}
	if def.Margin != search.DefaultPruneRule().Margin {
		t.Error("the study's own rule was changed")
	}
}
