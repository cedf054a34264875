package fidelity

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// short are the metrics the text table shows per row.
var short = []string{"e2e_mean", "e2e_p90", "ttft_mean", "ttft_p90", "itl_mean"}

// WriteText renders the report as tables: one row per stage and run
// summary (real → simulated, APE), then the overall MAPE and the groups.
func WriteText(w io.Writer, rep *Report) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "run\tmodel\ttp\tstage\trate")
	for _, m := range short {
		fmt.Fprintf(tw, "\t%s real→sim (APE)", m)
	}
	fmt.Fprintln(tw)
	for _, rr := range rep.Runs {
		if rr.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%d\t-\t-\tfailed: %s\n", rr.ID, rr.Model, rr.TP, rr.Error)
			continue
		}
		for _, row := range append(append([]Row(nil), rr.Stages...), rr.Summary) {
			writeRow(tw, rr, row)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nMAPE (%s) over %d stages:", rep.Mode, rep.Stages)
	for _, m := range metricNames {
		if v, ok := rep.StageMAPE[m]; ok {
			fmt.Fprintf(w, " %s %.1f%%", m, v)
		}
	}
	fmt.Fprintf(w, "\nMAPE (%s) over %d run summaries:", rep.Mode, len(rep.Runs))
	for _, m := range metricNames {
		if v, ok := rep.SummaryMAPE[m]; ok {
			fmt.Fprintf(w, " %s %.1f%%", m, v)
		}
	}
	writeCoverage(w, rep.Coverage)
	fmt.Fprintf(w, "\nstages where the simulated queue saturates and the real one did not: %d of %d\n", rep.SaturatedStages, rep.Stages)
	for _, g := range rep.Groups {
		fmt.Fprintf(w, "one-knob group %s (%s, runs %v): Spearman", g.Knob, g.Model, g.Runs)
		for _, m := range metricNames {
			if v, ok := g.Spearman[m]; ok {
				fmt.Fprintf(w, " %s %+.2f", m, v)
			}
		}
		fmt.Fprintln(w)
	}
	if len(rep.Groups) == 0 {
		fmt.Fprintln(w, "one-knob groups: none (no two runs of one model and workload differ in exactly one config field)")
	}
	return nil
}

func writeRow(w io.Writer, rr RunReport, row Row) {
	rate := "-"
	if row.Rate > 0 {
		rate = fmt.Sprintf("%g", row.Rate)
	}
	fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s", rr.ID, rr.Model, rr.TP, row.Stage, rate)
	for _, m := range short {
		r, ok1 := row.Real[m]
		s, ok2 := row.Sim[m]
		switch {
		case ok1 && ok2:
			fmt.Fprintf(w, "\t%.1f→%.1f (%.0f%%)", r, s, row.APE[m])
		case ok1:
			fmt.Fprintf(w, "\t%.1f→-", r)
		default:
			fmt.Fprintf(w, "\t-")
		}
	}
	if row.Saturated {
		fmt.Fprint(w, "\tSATURATED")
	}
	fmt.Fprintln(w)
}

// writeCoverage prints how often the measured values fell within the
// stated 80% and 95% intervals (stated: the built-in spreads; nested:
// spreads from the other runs only).
func writeCoverage(w io.Writer, c *Coverage) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "\ninterval coverage over stage rows (nominal 80%% / 95%%):")
	for _, m := range metricNames {
		if n, ok := c.Rows[m]; ok {
			fmt.Fprintf(w, " %s %.0f/%.0f%%", m, c.Stated80[m], c.Stated95[m])
			if v, ok := c.Nested80[m]; ok {
				fmt.Fprintf(w, " (nested %.0f/%.0f%%)", v, c.Nested95[m])
			}
			fmt.Fprintf(w, " of %d;", n)
		}
	}
}
