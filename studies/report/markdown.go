package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/servetune/servetune/studies"
)

// MarkdownFile is the name of the Markdown report inside its directory.
const MarkdownFile = "report.md"

// WriteMarkdown writes DIR/report.md and one SVG file per plot beside it.
func (f Full) WriteMarkdown(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	plots := f.Plots()
	for _, p := range plots {
		svg, err := p.SVG()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, p.ID+".svg"), svg, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	out, err := os.Create(filepath.Join(dir, MarkdownFile))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := f.Markdown(out, plots); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Markdown writes the report's text, linking each plot as ID.svg.
func (f Full) Markdown(w io.Writer, plots []Plot) error {
	e := f.Env
	fmt.Fprintf(w, "# Study %s\n\n", e.Study)
	if e.Simulated {
		fmt.Fprintf(w, "> **%s**\n\n", f.Summary.SimulatedNote())
	}
	fmt.Fprintf(w, "| | |\n|---|---|\n| model | %s |\n| hardware | %d×%s |\n| engines | %s |\n| runner | %s |\n", e.Model, e.GPUs, orDash(e.GPU, "device"), engineList(e.Engines), runnerText(e.Runner))
	fmt.Fprintf(w, "| servetune | %s |\n| trials ran | %s – %s |\n| trials | %s |\n| %s | %s |\n\n",
		e.Version, fmtDate(e.First), fmtDate(e.Last), f.Summary.Counts, e.Unit, fmt.Sprintf("%.2f", e.DeviceHours))
	f.markdownRecommended(w)
	for _, s := range f.Summary.Saturated {
		fmt.Fprintf(w, "> **Warning:** %s\n\n", s)
	}
	f.markdownProfiles(w)
	f.markdownNeighbours(w)
	if len(f.Summary.SLOs) > 0 || len(f.Summary.GuardBreaks) > 0 || len(f.Summary.Constraints) > 0 {
		fmt.Fprint(w, "## SLOs and guards\n")
		f.Summary.GuardsMarkdown(w)
		fmt.Fprint(w, "\n")
	}
	fmt.Fprintf(w, "## Plots%s\n\n", f.SimTag())
	for _, p := range plots {
		fmt.Fprintf(w, "![%s](%s.svg)\n\n", p.Title, p.ID)
		if p.Caption != "" {
			fmt.Fprintf(w, "%s\n\n", p.Caption)
		}
	}
	f.markdownForecasts(w)
	f.markdownViews(w)
	f.markdownImportance(w)
	fmt.Fprint(w, "## Serving commands\n\n")
	for _, rw := range f.Summary.Winners {
		fmt.Fprintf(w, "Trial %d (%s):\n\n```sh\n%s\n```\n\n", rw.Trial, joinNums(rw.Values), orDash(studies.FlagLines(rw.Command), "# cannot render: "+rw.CommandError))
	}
	f.markdownFailures(w)
	return f.markdownTrials(w)
}

func engineList(es []EngineVersion) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Engine + " " + orDash(e.Version, "(version not pinned)")
		if e.Reported {
			parts[i] += " (reported by the engine)"
		}
	}
	return strings.Join(parts, ", ")
}

func (f Full) markdownProfiles(w io.Writer) {
	fmt.Fprintf(w, "## Baseline vs chosen configs%s\n\n", f.SimTag())
	for _, t := range f.Profiles {
		fmt.Fprintf(w, "### Profile %s%s\n\n", t.Profile, f.SimTag())
		if t.Workload != "" {
			fmt.Fprintf(w, "Workload: %s.\n\n", t.Workload)
		}
		fmt.Fprint(w, "| trial |")
		for _, c := range t.Columns {
			fmt.Fprintf(w, " %s |", c.Label)
		}
		fmt.Fprint(w, "\n|---|"+strings.Repeat("---:|", len(t.Columns))+"\n")
		for _, r := range t.Rows {
			label := fmt.Sprint(r.Trial)
			if r.Baseline {
				label += " (baseline)"
			}
			if r.Source != "" {
				label += " (" + r.Source + ")"
			}
			fmt.Fprintf(w, "| %s |", label)
			for _, c := range r.Cells {
				fmt.Fprintf(w, " %s |", cellText(c))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
}

func cellText(c Cell) string {
	if !c.Has {
		return "–"
	}
	v := fmtNum(c.Value)
	if c.Text != "" {
		v = c.Text
	}
	v += studies.IntervalText(c.Interval)
	if !c.HasPct {
		return v
	}
	return fmt.Sprintf("%s (%+.1f%%)", v, c.Pct)
}

func (f Full) markdownImportance(w io.Writer) {
	fmt.Fprintf(w, "## Which knobs mattered%s\n\n", f.SimTag())
	if len(f.BaselineOnly) > 0 {
		fmt.Fprintf(w, "Not attributed: %s — only the baseline differs on them among the complete trials, so their effect cannot be told from the baseline's other differences (its GPU count among them).\n\n", strings.Join(f.BaselineOnly, ", "))
	}
	if len(f.Importance) == 0 {
		fmt.Fprint(w, "Too few complete trials to say.\n\n")
		return
	}
	if note := f.PerGPUNote(); note != "" {
		fmt.Fprintf(w, "%s\n\n", note)
	}
	fmt.Fprint(w, "| knob |")
	for _, m := range f.ImportanceOf {
		fmt.Fprintf(w, " share of %s |", m)
	}
	fmt.Fprint(w, "\n|---|"+strings.Repeat("---:|", len(f.Summary.Objectives))+"\n")
	for _, im := range f.Importance {
		fmt.Fprintf(w, "| %s%s |", im.Knob, togetherText(im.Together))
		for _, s := range im.Share {
			fmt.Fprintf(w, " %.0f%% |", s*100)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "\nfANOVA over a random forest fitted to the complete trials (as Optuna's default importance): each knob's share of the variance its values explain alone, averaged over the knobs' tried values.\n\n")
}

func (f Full) markdownFailures(w io.Writer) {
	fmt.Fprintf(w, "## Failures%s\n\n", f.SimTag())
	if len(f.Failures) == 0 {
		fmt.Fprint(w, "Every trial completed.\n\n")
		return
	}
	fmt.Fprint(w, "| class | trials | example | line |\n|---|---:|---:|---|\n")
	for _, g := range f.Failures {
		fmt.Fprintf(w, "| %s | %d | %d | `%s` |\n", g.Class, g.Count, g.Example, mdCell(g.Line))
	}
	fmt.Fprintln(w)
}

func (f Full) markdownTrials(w io.Writer) error {
	fmt.Fprintf(w, "## Trials%s\n\n<details><summary>All %d trials</summary>\n\n| trial | state | origin |", f.SimTag(), len(f.Points))
	for _, o := range f.Summary.Objectives {
		fmt.Fprintf(w, " %s |", o.Metric)
	}
	where, whereRule := "", ""
	if f.ShowWhere {
		where, whereRule = " ran on |", "---|"
	}
	fmt.Fprint(w, " device s |"+where+" config | why |\n|---:|---|---|"+strings.Repeat("---:|", len(f.Summary.Objectives))+"---:|"+whereRule+"---|---|\n")
	for _, p := range f.Points {
		fmt.Fprintf(w, "| %d | %s | %s |", p.Trial, p.State, p.Origin)
		for _, v := range p.Values {
			fmt.Fprintf(w, " %s |", fmtNum(v))
		}
		fmt.Fprintf(w, " %.0f |", p.GPUSeconds)
		if f.ShowWhere {
			fmt.Fprintf(w, " %s |", mdCell(p.Where.String()))
		}
		fmt.Fprintf(w, " `%s` | %s |\n", p.Config.Summary(), mdCell(p.Why))
	}
	_, err := fmt.Fprint(w, "\n</details>\n")
	return err
}

// mdCell keeps a value inside one table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "`", "'")
	return strings.ReplaceAll(s, "\n", " ")
}

// togetherText is " (varied only with dp, ep)" after a knob's name.
func togetherText(ks []string) string {
	if len(ks) == 0 {
		return ""
	}
	return " (varied only with " + strings.Join(ks, ", ") + ")"
}
