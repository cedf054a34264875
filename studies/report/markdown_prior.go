package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/servetune/servetune/studies"
)

// markdownRecommended writes the configs to deploy, first.
func (f Full) markdownRecommended(w io.Writer) {
	if len(f.Summary.Recommendations) == 0 {
		return
	}
	fmt.Fprintf(w, "## Recommended%s\n\n", f.SimTag())
	for _, rec := range f.Summary.Recommendations {
		fmt.Fprintf(w, "### %s: trial %d\n\n%s%s%s.\n\n", rec.Goal, rec.Trial, rec.Why, f.Summary.Certainty(rec), rec.SourceTag())
		for _, note := range []string{rec.GPUNote(), f.Summary.BuyNote(rec)} {
			if note != "" {
				fmt.Fprintf(w, "%s\n\n", note)
			}
		}
		for _, p := range rec.Profiles {
			parts := make([]string, len(p.Metrics))
			for i, m := range p.Metrics {
				parts[i] = m.Metric + " " + fmtNum(m.Value) + studies.IntervalText(m.Interval)
				switch {
				case m.VsBaseline != nil && m.PerGPUVsBaseline != nil:
					parts[i] += " (" + pctNum(*m.VsBaseline) + "; per GPU " + pctNum(*m.PerGPUVsBaseline) + ")"
				case m.VsBaseline != nil:
					parts[i] += " (" + pctNum(*m.VsBaseline) + ")"
				}
			}
			fmt.Fprintf(w, "- %s: %s\n", p.Profile, strings.Join(parts, ", "))
		}
		fmt.Fprintf(w, "\n```sh\n%s\n```\n\n", orDash(studies.FlagLines(rec.Command), "# cannot render: "+rec.CommandError))
	}
	if lines := f.Summary.GPUTypeLines(); len(lines) > 0 {
		fmt.Fprintf(w, "## Best per GPU type\n\n- %s\n\n", strings.Join(lines, "\n- "))
	}
}

// sameSimulator warns that a simulated study's errors measure nothing.
const sameSimulator = "These trials were simulated by the very simulator the prior predicts with: where the two agree, they agree by construction. The comparison says how good the prior is once trials run on real engines (target.runner = \"process\")."

// markdownForecasts compares the prior's predictions with the trials.
func (f Full) markdownForecasts(w io.Writer) {
	fc := f.Forecasts
	if fc == nil {
		return
	}
	fmt.Fprint(w, "## The prior's predictions vs the measurements\n\n")
	var errs []string
	for i, o := range f.Summary.Objectives {
		errs = append(errs, o.Metric+" "+strings.TrimPrefix(pctNum(fc.MedianAbsErrPct[i]), "+"))
	}
	fmt.Fprintf(w, "The simulator prior predicted %d trials before they ran. Median error: %s. Predicted not to start but completed: %d; predicted to start but refused by the engine: %d.\n\n",
		len(fc.Rows), strings.Join(errs, "; "), fc.StartedAgainst, fc.RefusedAgainst)
	if f.Env.Simulated {
		fmt.Fprintf(w, "%s\n\n", sameSimulator)
	}
	fmt.Fprint(w, "| trial | origin | state |")
	for _, o := range f.Summary.Objectives {
		fmt.Fprintf(w, " predicted %s | %s%s | error |", o.Metric, f.SimWord(), o.Metric)
	}
	fmt.Fprint(w, "\n|---:|---|---|"+strings.Repeat("---:|---:|---:|", len(f.Summary.Objectives))+"\n")
	for _, r := range fc.Rows {
		fmt.Fprintf(w, "| %d | %s | %s |", r.Trial, r.Origin, r.State)
		for i, p := range r.Predicted {
			pred := fmtNum(p)
			if r.NoStart {
				pred = "no start"
			}
			fmt.Fprintf(w, " %s | %s | %s |", pred, fmtNum(r.Measured[i]), pctNum(r.ErrPct[i]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// markdownViews writes the prior's view of each knob value.
func (f Full) markdownViews(w io.Writer) {
	if len(f.Views) == 0 {
		return
	}
	fmt.Fprint(w, "## What the prior thinks of each knob value\n\nThe best the prior predicted among the configs it looked at with that value, beside the complete trials there: a region with no or few trials is one the search left on the prior's word, and a prediction no trial but the baseline (or none) measured is marked so.\n\n| knob = value |")
	for _, o := range f.Summary.Objectives {
		fmt.Fprintf(w, " predicted best %s |", o.Metric)
	}
	fmt.Fprint(w, " trials |")
	for _, o := range f.Summary.Objectives {
		fmt.Fprintf(w, " %sbest %s |", f.SimWord(), o.Metric)
	}
	n := len(f.Summary.Objectives)
	fmt.Fprint(w, "\n|---|"+strings.Repeat("---:|", 2*n+1)+"\n")
	for _, v := range f.Views {
		fmt.Fprintf(w, "| %s = %s |", v.Knob, mdCell(v.Value))
		for _, p := range v.Predicted {
			fmt.Fprintf(w, " %s%s |", fmtNum(p), unsupported(v.Support))
		}
		fmt.Fprintf(w, " %d |", v.Trials)
		for _, m := range v.Measured {
			fmt.Fprintf(w, " %s |", fmtNum(m))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// unsupported marks a prediction no measured trial backs.
func unsupported(support string) string {
	if support == "" {
		return ""
	}
	return " (" + support + " measured it)"
}
