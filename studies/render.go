package studies

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// JSON writes the report as indented JSON; NaN (a missing measurement) is null.
func (r Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // SLOs read "p99_ttft_ms <= 2000"
	return enc.Encode(sanitize(r))
}

// sanitize replaces NaN and Inf, which JSON cannot carry, with nil.
func sanitize(r Report) any {
	if _, err := json.Marshal(r); err == nil {
		return r
	}
	fix := func(xs []float64) []any {
		out := make([]any, len(xs))
		for i, x := range xs {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				out[i] = x
			}
		}
		return out
	}
	type row struct {
		Row
		Values     []any `json:"values"`
		VsBaseline []any `json:"vs_baseline_pct,omitempty"`
	}
	conv := func(rw Row) row { return row{rw, fix(rw.Values), fix(rw.VsBaseline)} }
	type out struct {
		Report
		Baseline *row  `json:"baseline,omitempty"`
		Winners  []row `json:"winners"`
	}
	o := out{Report: r}
	if r.Baseline != nil {
		b := conv(*r.Baseline)
		o.Baseline = &b
	}
	for _, w := range r.Winners {
		o.Winners = append(o.Winners, conv(w))
	}
	return o
}

// Text writes the report for a terminal.
func (r Report) Text(w io.Writer) error {
	fmt.Fprintf(w, "Study %s: %s on %s\n", r.Study, r.Model, r.Devices())
	if r.Simulated {
		fmt.Fprintf(w, "%s\n", r.SimulatedNote())
	}
	fmt.Fprintf(w, "Trials: %s; %.2f %s\n", r.Counts, r.GPUHours, r.HoursUnit())
	for _, env := range r.Environment {
		fmt.Fprintf(w, "Environment, %s\n", env)
	}
	for _, c := range r.Constraints {
		fmt.Fprintf(w, "SLO: %s\n", c)
	}
	r.slosText(w)
	for _, s := range r.Saturated {
		fmt.Fprintf(w, "Warning: %s\n", s)
	}
	if r.Baseline != nil {
		fmt.Fprintf(w, "Baseline (trial %d): %s\n", r.Baseline.Trial, r.values(*r.Baseline, false))
	}
	switch {
	case len(r.Winners) == 0:
		fmt.Fprintln(w, "\nNo trial finished with every SLO met yet.")
		return nil
	}
	r.recommendationsText(w)
	r.gpuTypesText(w, fmt.Sprintf("\nBest per GPU type (%s):\n", r.Objectives[0].Metric), "  ")
	switch {
	case r.MultiObjective:
		fmt.Fprintf(w, "\nPareto front (%d trials%s):\n", len(r.Winners), r.simTag(", ", ""))
	default:
		fmt.Fprintf(w, "\nBest trial%s:\n", r.simTag(" (", ")"))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "  trial")
	for _, o := range r.Objectives {
		fmt.Fprintf(tw, "\t%s (%s)", o.Metric, arrow(o.Direction))
	}
	if r.separates() {
		fmt.Fprint(tw, "\tsource")
	}
	fmt.Fprint(tw, "\tconfig\n")
	for _, rw := range r.Winners {
		mark := " "
		if rw.WithinNoise {
			mark = "~"
		}
		fmt.Fprintf(tw, " %s%d%s", mark, rw.Trial, sameAs(rw.Equivalent))
		for i := range r.Objectives {
			fmt.Fprintf(tw, "\t%s", r.cell(rw, i))
		}
		if r.separates() {
			fmt.Fprintf(tw, "\t%s", r.sourceText(rw))
		}
		fmt.Fprintf(tw, "\t%s\n", rw.Config.Summary())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.MultiObjective {
		src := "assumed"
		if r.NoiseMeasured {
			src = "measured from repeated configs"
		}
		fmt.Fprintf(w, "  ~ within noise of a neighbour on every objective (noise %.1f%%, %s)\n", r.NoiseCV*100, src)
	}
	r.guardsText(w)
	fmt.Fprintln(w, "\nServing commands:")
	for _, rw := range r.Winners {
		if rw.CommandError != "" {
			fmt.Fprintf(w, "  trial %d: cannot render: %s\n", rw.Trial, rw.CommandError)
			continue
		}
		fmt.Fprintf(w, "  trial %d:\n    %s\n", rw.Trial, strings.ReplaceAll(rw.Command, "\n", "\n    "))
		if rw.Ran != "" {
			fmt.Fprintf(w, "    ran as:\n    %s\n", rw.Ran)
		}
	}
	return nil
}

// Markdown writes the report as a Markdown section.
func (r Report) Markdown(w io.Writer) error {
	fmt.Fprintf(w, "## Study %s\n\n%s on %s. Trials: %s; %.2f %s.\n\n", r.Study, r.Model, r.Devices(), r.Counts, r.GPUHours, r.HoursUnit())
	if r.Simulated {
		fmt.Fprintf(w, "**%s**\n\n", r.SimulatedNote())
	}
	r.recommendationsMarkdown(w)
	r.gpuTypesText(w, fmt.Sprintf("### Best per GPU type (%s)\n\n", r.Objectives[0].Metric), "- ")
	if r.separates() {
		fmt.Fprint(w, "\n")
	}
	for _, s := range r.Saturated {
		fmt.Fprintf(w, "> **Warning:** %s\n\n", s)
	}
	for _, env := range r.Environment {
		fmt.Fprintf(w, "Environment, %s.\n\n", env)
	}
	fmt.Fprint(w, "| trial |")
	for _, o := range r.Objectives {
		fmt.Fprintf(w, " %s (%s) |", o.Metric, arrow(o.Direction))
	}
	if r.separates() {
		fmt.Fprint(w, " source |")
	}
	fmt.Fprint(w, " config |\n|---|")
	for range r.Objectives {
		fmt.Fprint(w, "---|")
	}
	if r.separates() {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprint(w, "---|\n")
	rows := r.Winners
	if r.Baseline != nil {
		rows = append([]Row{*r.Baseline}, rows...)
	}
	for _, rw := range rows {
		label := strconv.Itoa(rw.Trial) + sameAs(rw.Equivalent)
		if rw.Origin == "baseline" {
			label += " (baseline)"
		}
		fmt.Fprintf(w, "| %s |", label)
		for i := range r.Objectives {
			fmt.Fprintf(w, " %s |", r.cell(rw, i))
		}
		if r.separates() {
			fmt.Fprintf(w, " %s |", r.sourceText(rw))
		}
		fmt.Fprintf(w, " `%s` |\n", rw.Config.Summary())
	}
	r.GuardsMarkdown(w)
	for _, rw := range r.Winners {
		fmt.Fprintf(w, "\nTrial %d:\n\n```sh\n%s\n```\n", rw.Trial, rw.Command)
		if rw.Ran != "" {
			fmt.Fprintf(w, "\nRan as:\n\n```sh\n%s\n```\n", rw.Ran)
		}
	}
	return nil
}

// sameAs lists equivalent trials after a front member: " (= 26, 29)".
func sameAs(trials []int) string {
	if len(trials) == 0 {
		return ""
	}
	parts := make([]string, len(trials))
	for i, n := range trials {
		parts[i] = strconv.Itoa(n)
	}
	return " (= " + strings.Join(parts, ", ") + ")"
}

func (r Report) values(rw Row, withPct bool) string {
	parts := make([]string, len(r.Objectives))
	for i, o := range r.Objectives {
		parts[i] = o.Metric + " " + fmtMetric(o.Metric, rw.Values[i])
		if withPct {
			parts[i] = o.Metric + " " + r.cell(rw, i)
		}
	}
	return strings.Join(parts, "  ")
}

func (r Report) cell(rw Row, i int) string {
	s := fmtMetric(r.Objectives[i].Metric, rw.Values[i])
	if i < len(rw.VsBaseline) && !math.IsNaN(rw.VsBaseline[i]) && rw.Origin != "baseline" {
		s += fmt.Sprintf(" (%+.1f%%)", rw.VsBaseline[i])
	}
	return s
}

func arrow(d space.Direction) string {
	if d == space.Minimize {
		return "min"
	}
	return "max"
}

func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func (c Counts) String() string {
	s := fmt.Sprintf("%d (%d complete", c.Total, c.Complete)
	for _, p := range []struct {
		n    int
		name string
	}{{c.Infeasible, "infeasible"}, {c.Failed, "failed"}, {c.Interrupted, "interrupted"}, {c.Pruned, "pruned"}, {c.Running, "running"}} {
		if p.n > 0 {
			s += fmt.Sprintf(", %d %s", p.n, p.name)
		}
	}
	return s + ")"
}

// TrialsText writes a trials table with the objective and SLO metrics as
// columns; a trial that ran but missed an SLO says so in its state.
func TrialsText(w io.Writer, sp *space.Space, ts []store.Trial) error {
	type column struct{ profile, metric string }
	var cols []column
	for _, o := range sp.Objectives {
		cols = append(cols, column{sp.ObjectiveProfile(o.Profile), o.Metric})
	}
	for _, c := range sp.Constraints {
		cols = append(cols, column{sp.ObjectiveProfile(c.Profile), c.Metric})
	}
	separate := routes(sp)
	switch {
	case separate:
		fmt.Fprintf(w, "Partly simulated: trials on %s ran on servetune's simulator (target.simulated_gpus), trials on %s were measured; the source column says which.\n",
			strings.Join(sp.Target.SimulatedGPUs, ", "), sp.Target.GPU)
	case simulated(ts):
		fmt.Fprintln(w, "Simulated: these trials ran on servetune's simulator (runner sim); their metrics are not measurements.")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "trial\tstate\torigin")
	if separate {
		fmt.Fprint(tw, "\tsource")
	}
	predicted := hasPredictions(ts)
	if predicted {
		fmt.Fprintf(tw, "\tpredicted %s", sp.Objectives[0].Metric)
	}
	for _, c := range cols {
		fmt.Fprintf(tw, "\t%s", c.metric)
	}
	where := ranOnWorkers(ts)
	if where {
		fmt.Fprint(tw, "\tgpu_s\tworker\tgpus\tconfig\tfailure\n")
	} else {
		fmt.Fprint(tw, "\tgpu_s\tconfig\tfailure\n")
	}
	for _, t := range ts {
		state := string(t.State)
		switch {
		case t.State == store.Complete && Violation(sp, t, Baseline(ts)) > 0:
			state += " (SLO missed)"
		case t.HolderGone:
			state += " (holder gone)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s", t.Number, state, t.Origin)
		if separate {
			fmt.Fprintf(tw, "\t%s", sourceOf(t))
		}
		if predicted {
			fmt.Fprintf(tw, "\t%s", predictedText(t.Prediction))
		}
		for _, c := range cols {
			fmt.Fprintf(tw, "\t%s", fmtMetric(c.metric, metric(t, c.profile, c.metric)))
		}
		fmt.Fprintf(tw, "\t%.0f", t.GPUSeconds)
		if where {
			fmt.Fprintf(tw, "\t%s\t%s", orDash(t.Worker), orDash(strings.Join(t.Devices, ",")))
		}
		fmt.Fprintf(tw, "\t%s\t%s\n", t.Config.Summary(), failureText(t))
	}
	return tw.Flush()
}

func failureText(t store.Trial) string { return t.Why() }

// ranOnWorkers says whether trials name their worker or GPUs (a parallel
// or distributed study): the trial listings then say where each ran.
func ranOnWorkers(ts []store.Trial) bool {
	for _, t := range ts {
		if t.Worker != "" || len(t.Devices) > 0 {
			return true
		}
	}
	return false
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// TrialsCSV writes every trial with every knob and every metric of every
// profile as columns, for spreadsheets and pandas.
func TrialsCSV(w io.Writer, ts []store.Trial) error {
	knobs, metrics := map[string]bool{}, map[string]bool{}
	for _, t := range ts {
		for k := range t.Config {
			knobs[k] = true
		}
		for p, m := range t.Metrics {
			for name := range m {
				metrics[p+"/"+name] = true
			}
		}
	}
	kcols, mcols := slices.Sorted(maps.Keys(knobs)), slices.Sorted(maps.Keys(metrics))
	cw := csv.NewWriter(w)
	head := []string{"trial", "state", "origin", "gpu_seconds", "failure_class", "failure_message"}
	where := ranOnWorkers(ts)
	if where {
		head = append(head, "worker", "gpus")
	}
	head = append(head, kcols...)
	if err := cw.Write(append(head, mcols...)); err != nil {
		return err
	}
	for _, t := range ts {
		rec := []string{strconv.Itoa(t.Number), string(t.State), t.Origin, strconv.FormatFloat(t.GPUSeconds, 'f', 1, 64), "", ""}
		if t.Failure != nil {
			rec[4], rec[5] = string(t.Failure.Class), t.Failure.Message
		} else if t.Reason != "" {
			rec[5] = t.Reason
		}
		if where {
			rec = append(rec, t.Worker, strings.Join(t.Devices, ","))
		}
		for _, k := range kcols {
			rec = append(rec, t.Config.String(k))
		}
		for _, m := range mcols {
			p, name, _ := strings.Cut(m, "/")
			v := metric(t, p, name)
			if math.IsNaN(v) {
				rec = append(rec, "")
			} else {
				rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// TrialsJSON writes the trials as a JSON array (the export contract).
func TrialsJSON(w io.Writer, ts []store.Trial) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	// A checkpoint's undefined values (an objective of another profile)
	// are NaN in memory and null in JSON, as in the store.
	type exported struct {
		store.Trial
		Intermediate []store.StoredCheckpoint `json:"intermediate,omitempty"`
	}
	out := make([]exported, len(ts))
	for i, t := range ts {
		out[i] = exported{Trial: t}
		if len(t.Intermediate) > 0 {
			out[i].Intermediate = store.ToStored(t.Intermediate)
		}
	}
	return enc.Encode(out)
}
