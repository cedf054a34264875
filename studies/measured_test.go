package studies

import (
	"slices"
	"testing"

	"github.com/servetune/servetune/studies/store"
)

// MeasuredConfigs is the report's grouping: a config measured twice is
// one entry at its mean, every metric too, with both runs; a reused
// measurement is none of its runs; an incomplete trial is left out.
func TestMeasuredConfigsIsTheReportsGrouping(t *testing.T) {
	sp, ts := guardFixture(t)
	ts = ts[:2]
	again := ts[1]
	again.Number, again.Origin = 3, "noise"
	again.Metrics = map[string]map[string]float64{"balanced": {"total_tps": 12000}, "sharegpt": {"total_tps": 3000}}
	reused := ts[1]
	reused.Number, reused.Origin, reused.ReusedFrom = 4, "reused", 2
	failed := ts[1]
	failed.Number, failed.State = 5, store.Failed
	ts = append(ts, again, reused, failed)

	ms := MeasuredConfigs(sp, ts)
	if len(ms) != 2 {
		t.Fatalf("%d configs, want 2: %+v", len(ms), ms)
	}
	m := ms[1]
	if m.Violation == 0 {
		t.Errorf("the repeated config breaks the sharegpt guard on both runs, violation %v", m.Violation)
	}
	if !slices.Equal(m.Runs, []int{1, 2}) || m.Values[0] != 12300 || m.Metrics["sharegpt"]["total_tps"] != (2845.48+3000)/2 {
		t.Errorf("the repeated config: runs %v values %v metrics %v", m.Runs, m.Values, m.Metrics)
	}
}
