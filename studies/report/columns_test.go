package report

import (
	"slices"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// The baseline-vs-chosen table shows what the study chose by: the
// objective's metric, each constraint's, and each stage's value of the
// objective, after the fixed columns and only on their profile.
func TestTableColumnsCarryObjectivesConstraintsAndStages(t *testing.T) {
	sp := &space.Space{
		Objectives:  []space.Objective{{Metric: "goodput_rps", Direction: space.Maximize}, {Metric: "mean_tpot_ms", Direction: space.Minimize}},
		Constraints: []space.Constraint{{Metric: "stage1_p99_ttft_ms", Op: "<="}, {Metric: "total_tps", Op: ">=", Profile: "other"}},
		Profiles: []bench.Profile{{Name: "burst", Stages: []bench.Stage{{Rate: 4, Duration: time.Minute}, {Rate: 10, Duration: time.Minute}}},
			{Name: "other", NumPrompts: 10}},
	}
	var got []string
	for _, c := range tableColumns(sp, "burst")[len(Columns()):] {
		got = append(got, c.Metric)
		if c.Metric == "stage1_p99_ttft_ms" && c.Higher || c.Metric == "stage0_goodput_rps" && !c.Higher {
			t.Errorf("column %s: higher is better = %v", c.Metric, c.Higher)
		}
	}
	want := []string{"goodput_rps", "stage1_p99_ttft_ms", "stage0_goodput_rps", "stage0_mean_tpot_ms", "stage1_goodput_rps", "stage1_mean_tpot_ms"}
	if !slices.Equal(got, want) {
		t.Errorf("extra columns %v, want %v", got, want)
	}
	if n := len(tableColumns(sp, "other")); n != len(Columns()) {
		t.Errorf("profile other: %d columns, want the fixed %d (total_tps is one)", n, len(Columns()))
	}
}
