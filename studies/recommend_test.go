package studies

import (
	"math"
	"reflect"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestRecommend(t *testing.T) {
	tps := ObjectiveInfo{Metric: "total_tps", Direction: space.Maximize}
	tpot := ObjectiveInfo{Metric: "mean_tpot_ms", Direction: space.Minimize}
	row := func(trial int, feasible bool, vs ...float64) Row {
		return Row{Trial: trial, Values: vs, Feasible: feasible}
	}
	type pick struct {
		goal  string
		trial int
	}
	cases := []struct {
		name  string
		objs  []ObjectiveInfo
		front []Row
		noise float64
		slo   bool
		want  []pick
	}{
		{"one objective: the best", []ObjectiveInfo{tps}, []Row{row(4, true, 900)}, 0.05, false,
			[]pick{{"max total_tps", 4}}},
		{"two objectives: one per objective", []ObjectiveInfo{tps, tpot},
			[]Row{row(2, true, 25000, 120), row(7, true, 5600, 46), row(3, true, 4300, 31)}, 0.05, false,
			[]pick{{"max total_tps", 2}, {"min mean_tpot_ms", 3}}},
		{"within noise on the first objective: its best mean stands (the config confirmation defends)", []ObjectiveInfo{tps, tpot},
			[]Row{row(35, true, 19534, 89), row(41, true, 19531, 87.5), row(3, true, 4300, 31)}, 0.05, false,
			[]pick{{"max total_tps", 35}, {"min mean_tpot_ms", 3}}},
		{"lab B200 seed 9: 0.15% short on the first objective, better on the other: not traded", []ObjectiveInfo{tps, tpot},
			[]Row{row(5, true, 56467, 59.01), row(11, true, 56382, 57.65), row(27, true, 30000, 30)}, 0.026, false,
			[]pick{{"max total_tps", 5}, {"min mean_tpot_ms", 27}}},
		{"an exact tie on the first objective: the other breaks it", []ObjectiveInfo{tps, tpot},
			[]Row{row(35, true, 19534, 89), row(41, true, 19534, 87.5), row(3, true, 4300, 31)}, 0.05, false,
			[]pick{{"max total_tps", 41}, {"min mean_tpot_ms", 3}}},
		{"within noise on another goal, better on the first: it wins", []ObjectiveInfo{tps, tpot},
			[]Row{row(2, true, 25000, 120), row(7, true, 5600, 31.5), row(3, true, 4300, 31)}, 0.05, false,
			[]pick{{"max total_tps", 2}, {"min mean_tpot_ms", 7}}},
		{"outside noise: the best stands", []ObjectiveInfo{tps, tpot},
			[]Row{row(2, true, 25416, 124), row(35, true, 19534, 89)}, 0.05, false,
			[]pick{{"max total_tps", 2}, {"min mean_tpot_ms", 35}}},
		{"under the SLO: one config, the best first objective", []ObjectiveInfo{tps, tpot},
			[]Row{row(2, true, 25000, 120), row(3, true, 4300, 31)}, 0.05, true,
			[]pick{{"max total_tps under the SLO", 2}}},
		{"an infeasible member is never recommended", []ObjectiveInfo{tps},
			[]Row{row(5, false, 30000), row(6, true, 100)}, 0.05, true,
			[]pick{{"max total_tps under the SLO", 6}}},
		{"best on both objectives: one pick naming both", []ObjectiveInfo{tps, tpot},
			[]Row{row(9, true, 100, 10)}, 0.05, false,
			[]pick{{"max total_tps, min mean_tpot_ms", 9}}},
		{"nothing feasible: no recommendation", []ObjectiveInfo{tps},
			[]Row{row(5, false, 30000)}, 0.05, true, nil},
		{"a missing value is skipped", []ObjectiveInfo{tps, tpot},
			[]Row{row(1, true, math.NaN(), 5), row(2, true, 10, 20)}, 0, false,
			[]pick{{"max total_tps, min mean_tpot_ms", 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []pick
			for _, p := range recommend(c.objs, c.front, c.noise, c.slo) {
				got = append(got, pick{p.Goal, c.front[p.Index].Trial})
				if p.Why == "" {
					t.Errorf("pick %+v says not why", p)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
