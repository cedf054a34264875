package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// Column is one metric of the per-profile tables, in the seed reports'
// order: throughput, then TTFT, TPOT, ITL and end-to-end latency.
type Column struct {
	Metric, Label string
	// Higher is better for throughputs; lower for latencies.
	Higher bool
}

// Columns lists the per-profile table's metrics; each one's unit and
// direction are the metric table's (bench.MetricOf).
func Columns() []Column {
	return []Column{
		column(bench.MetricOutputTPS, "output"),
		column(bench.MetricTotalTPS, "total"),
		column(bench.MetricMeanTTFTMs, "mean TTFT"),
		column(bench.MetricP99TTFTMs, "p99 TTFT"),
		column(bench.MetricMeanTPOTMs, "mean TPOT"),
		column(bench.MetricMeanITLMs, "mean ITL"),
		column(bench.MetricMeanE2EMs, "mean E2E"),
	}
}

// column is a fixed column: its label is what, then the metric's unit.
func column(metric, what string) Column {
	m, _ := bench.MetricOf(metric)
	return Column{Metric: metric, Label: what + " " + m.Unit, Higher: m.Better == bench.Higher}
}

// ProfileTable is baseline vs the chosen configs on one profile.
type ProfileTable struct {
	Profile string
	// Workload describes the profile's load ("random, 8K in / 1K out,
	// 1000 prompts, rate 10 req/s").
	Workload string
	// Columns are Columns() and, where the study measures others on the
	// profile, its objectives' and constraints' metrics and each stage's
	// value of its objectives (tableColumns).
	Columns []Column
	Rows    []ProfileRow
}

// ProfileRow is one trial's metrics on the profile, cell by cell in
// Columns order.
type ProfileRow struct {
	Trial    int
	Baseline bool
	Cells    []Cell
	// Source is "measured" or "simulated" in a study that simulates some
	// GPU types beside the measured one ("" otherwise: studies.Row).
	Source string
}

// Cell is a metric and its change against the baseline; Has and HasPct
// say whether each is defined (an undefined metric is shown absent).
type Cell struct {
	Value, Pct  float64
	Has, HasPct bool
	// Better is +1 when the change is an improvement, -1 a regression.
	Better int
	// Text is the value as a duration in s or min when it is a long one
	// (studies.FormatDuration), "" to write the number.
	Text string
	// Interval is the simulator's stated interval around a simulated
	// value (nil for a measured one, and where it states none).
	Interval *store.Interval
}

// profileTables builds one table for every profile any trial measured,
// so a regression on a second workload shows beside the first.
func profileTables(sp *space.Space, trials []store.Trial, r studies.Report) []ProfileTable {
	byNum := map[int]store.Trial{}
	seen := map[string]bool{}
	for _, t := range trials {
		byNum[t.Number] = t
		for p := range t.Metrics {
			seen[p] = true
		}
	}
	var rows []studies.Row
	if r.Baseline != nil {
		rows = append(rows, *r.Baseline)
	}
	rows = append(rows, r.Winners...)
	var out []ProfileTable
	for _, p := range slices.Sorted(maps.Keys(seen)) {
		tab := ProfileTable{Profile: p, Columns: tableColumns(sp, p)}
		var base map[string]float64
		if r.Baseline != nil {
			base = byNum[r.Baseline.Trial].Metrics[p]
		}
		for _, rw := range rows {
			isBase := rw.Origin == "baseline" && r.Baseline != nil && rw.Trial == r.Baseline.Trial
			t := byNum[rw.Trial]
			row := ProfileRow{Trial: rw.Trial, Baseline: isBase, Cells: cells(tab.Columns, t.Metrics[p], base, isBase), Source: rw.Source}
			for i, c := range tab.Columns {
				if iv, ok := t.Intervals[p][c.Metric]; ok {
					row.Cells[i].Interval = &iv
				}
			}
			tab.Rows = append(tab.Rows, row)
		}
		out = append(out, tab)
	}
	return out
}

func cells(cols []Column, m, base map[string]float64, isBase bool) []Cell {
	var out []Cell
	for _, c := range cols {
		var cl Cell
		cl.Value, cl.Has = m[c.Metric]
		if cl.Has {
			cl.Text, _ = studies.FormatDuration(c.Metric, cl.Value)
		}
		if b, ok := base[c.Metric]; ok && cl.Has && !isBase && b != 0 {
			cl.Pct, cl.HasPct = (cl.Value-b)/math.Abs(b)*100, true
			cl.Better = betterSign(cl.Pct, c.Higher)
		}
		out = append(out, cl)
	}
	return out
}

// tableColumns is the profile's table: the fixed columns, then the
// metrics the study judges configs by on it that those lack — its
// objectives (goodput_rps, a rate search's max_rate_under_slo), its
// constraints (stage1_p99_ttft_ms) — and each stage's value of each
// objective, so the table shows what the study chose by (issue 50).
func tableColumns(sp *space.Space, profile string) []Column {
	cols := Columns()
	has := func(m string) bool {
		return slices.ContainsFunc(cols, func(c Column) bool { return c.Metric == m })
	}
	add := func(m string, higher bool) {
		if !has(m) {
			cols = append(cols, Column{Metric: m, Label: m, Higher: higher})
		}
	}
	if sp == nil {
		return cols
	}
	var objs []space.Objective
	for _, o := range sp.Objectives {
		if sp.ObjectiveProfile(o.Profile) == profile {
			objs = append(objs, o)
			add(o.Metric, o.Direction == space.Maximize)
		}
	}
	for _, c := range sp.Constraints {
		if sp.ObjectiveProfile(c.Profile) == profile {
			add(c.Metric, strings.HasPrefix(c.Op, ">"))
		}
	}
	for _, p := range sp.Profiles {
		if p.Name != profile {
			continue
		}
		for k := range p.Stages {
			for _, o := range objs {
				if !strings.HasPrefix(o.Metric, "stage") {
					add(fmt.Sprintf("stage%d_%s", k, o.Metric), o.Direction == space.Maximize)
				}
			}
		}
	}
	return cols
}

func betterSign(pct float64, higher bool) int {
	switch {
	case pct == 0:
		return 0
	case (pct > 0) == higher:
		return 1
	}
	return -1
}
