package calib

import (
	"math"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

func TestSlotsFitTheStudyMetricsAndTheObjectivesWhereMeasured(t *testing.T) {
	sp := &space.Space{
		Profiles: []bench.Profile{{Name: "chat"}, {Name: "long"}, {Name: "qa", Kind: bench.KindQuality}},
		Objectives: []space.Objective{
			{Metric: "p99_ttft_ms"},                // the first profile's
			{Metric: "total_tps", Profile: "long"}, // a calibration metric already
			{Metric: "accuracy", Profile: "qa"},    // quality: never fitted
		},
	}
	measured := []map[string]map[string]float64{
		{"chat": {"total_tps": 900, "mean_tpot_ms": 12, "mean_ttft_ms": 80, "p99_ttft_ms": 300, "mean_itl_ms": 11}, "qa": {"accuracy": 0.9, "total_tps": 5}},
		{"chat": {"total_tps": 0, "mean_tpot_ms": math.Inf(1), "p99_ttft_ms": -1}, "long": {"total_tps": 400, "p99_ttft_ms": 900}},
	}
	want := []Slot{
		{0, "chat", "total_tps"}, {0, "chat", "mean_tpot_ms"}, {0, "chat", "mean_ttft_ms"}, {0, "chat", "p99_ttft_ms"},
		{1, "long", "total_tps"},
	}
	got := Slots(sp, measured)
	if len(got) != len(want) {
		t.Fatalf("Slots = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("slot %d = %v, want %v", i, got[i], want[i])
		}
	}
}
