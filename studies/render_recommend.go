package studies

import (
	"fmt"
	"io"
	"strings"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// SimulatedNote says, in one sentence, that the values are simulated.
func (r Report) SimulatedNote() string {
	if len(r.SimulatedGPUs) > 0 {
		return fmt.Sprintf("Partly simulated: trials on %s ran on servetune's simulator (target.simulated_gpus), not on a GPU: their values are predictions, shown with the simulator's 95%% interval and marked simulated; trials on %s were measured.",
			strings.Join(r.SimulatedGPUs, ", "), r.GPU)
	}
	if r.Runner == "mixed" {
		return "Partly simulated: some trials ran on servetune's simulator (target.runner = \"sim\"); their values are not measurements."
	}
	// The simulator prior predicts from the same cards the simulated
	// machine runs on, so a prior-guided study here finds what its prior
	// already knew (issue 21): say so, or the demo reads as evidence.
	return "Simulated: every value below comes from servetune's simulator (target.runner = \"sim\"), not from a measurement. " +
		"The simulated machine is the simulator's own cards, the ones its prior (study.prior) predicts with: a prior-guided result here is right by construction, not evidence that servetune learns a different machine."
}

// simTag is "simulated" between open and end when the values are
// simulated; not in a study that names each row's source instead.
func (r Report) simTag(open, end string) string {
	if r.Simulated && !r.separates() {
		return open + "simulated" + end
	}
	return ""
}

// recommendationsText writes the configs to deploy, each with its
// changes against the baseline and its command, one flag per line.
func (r Report) recommendationsText(w io.Writer) {
	if len(r.Recommendations) == 0 {
		return
	}
	head := "Recommended" + r.simTag(" (", ")")
	fmt.Fprintf(w, "\n%s:\n", head)
	defer r.noiseText(w, "  ", "\n")
	for _, rec := range r.Recommendations {
		fmt.Fprintf(w, "  %s: trial %d (%s%s%s)\n", rec.Goal, rec.Trial, rec.Why, r.Certainty(rec), rec.SourceTag())
		for _, note := range []string{rec.NodeNote(), r.BuyNote(rec), rec.Price} {
			if note != "" {
				fmt.Fprintf(w, "    %s\n", note)
			}
		}
		if note := rec.GPUNote(); note != "" {
			fmt.Fprintf(w, "    %s\n", note)
		}
		for _, p := range rec.Profiles {
			fmt.Fprintf(w, "    %s: %s\n", p.Profile, p.changes())
		}
		if rec.CommandError != "" {
			fmt.Fprintf(w, "    cannot render: %s\n", rec.CommandError)
			continue
		}
		fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(FlagLines(rec.Command), "\n", "\n    "))
	}
}

// recommendationsMarkdown writes the configs to deploy as a section.
func (r Report) recommendationsMarkdown(w io.Writer) {
	if len(r.Recommendations) == 0 {
		return
	}
	fmt.Fprint(w, "### Recommended\n\n")
	defer r.noiseText(w, "", "\n\n")
	for _, rec := range r.Recommendations {
		fmt.Fprintf(w, "**%s**: trial %d (%s%s%s).", rec.Goal, rec.Trial, rec.Why, r.Certainty(rec), rec.SourceTag())
		for _, note := range []string{rec.NodeNote(), r.BuyNote(rec), rec.Price} {
			if note != "" {
				fmt.Fprintf(w, " %s", note)
			}
		}
		if note := rec.GPUNote(); note != "" {
			fmt.Fprintf(w, " %s", note)
		}
		for _, p := range rec.Profiles {
			fmt.Fprintf(w, " %s: %s.", p.Profile, p.changes())
		}
		fmt.Fprintf(w, "\n\n```sh\n%s\n```\n\n", orDash(FlagLines(rec.Command)))
	}
}

// Certainty is how sure a recommendation is, after its reason: the
// measurements its values average and the 95% interval of the first
// objective ("; confirmed by 3 measurements, ±2.9%"). It is empty for a
// config measured once in a study that measured no noise, whose
// uncertainty nobody measured.
func (r Report) Certainty(rec Recommendation) string {
	switch {
	case rec.Confirmed:
		return fmt.Sprintf("; confirmed by %d measurements, ±%.1f%%", rec.Measurements, rec.UncertaintyPct)
	case r.NoiseMeasured:
		return fmt.Sprintf("; measured once, ±%.1f%%", rec.UncertaintyPct)
	}
	return ""
}

// noiseText writes what the study measured of the noise and drift, when
// it repeated any config.
func (r Report) noiseText(w io.Writer, indent, end string) {
	if !r.NoiseMeasured {
		return
	}
	// The ± intervals are wider than the measured noise alone makes them
	// (Report.uncertaintyPct): say why, or a deterministic simulator's
	// 0.0% beside ±4% reads as a bug.
	fmt.Fprintf(w, "%sNoise: %.1f%% per measurement, measured from %d repeats (the ± intervals also weigh the assumed %.0f%%)",
		indent, r.NoiseCV*100, r.NoiseDF, DefaultNoiseCV*100)
	if d := r.Drift; d != nil {
		verdict := "no drift detected"
		if d.Detected {
			verdict = "drift detected"
		}
		fmt.Fprintf(w, "; repeats moved %+.1f%% on average (%d repeats, %s)", d.MeanPct, d.Pairs, verdict)
	}
	fmt.Fprint(w, end)
}

// changes is "total_tps 25416.35 (+404.2%), mean_tpot_ms 123.66 (+44.5%)".
func (p ProfileChange) changes() string {
	parts := make([]string, len(p.Metrics))
	for i, m := range p.Metrics {
		parts[i] = m.Metric + " " + fmtMetric(m.Metric, m.Value) + IntervalText(m.Interval)
		switch {
		case m.VsBaseline != nil && m.PerGPUVsBaseline != nil:
			parts[i] += fmt.Sprintf(" (%+.1f%%; per GPU %+.1f%%)", *m.VsBaseline, *m.PerGPUVsBaseline)
		case m.VsBaseline != nil:
			parts[i] += fmt.Sprintf(" (%+.1f%%)", *m.VsBaseline)
		}
	}
	return strings.Join(parts, ", ")
}

// NodeNote names the GPU type a config with a gpu knob runs on: the
// serving command has no flag for it (a deployment picks the node type),
// so without this line the recommendation would not say what to buy.
func (rec Recommendation) NodeNote() string {
	if !rec.Config.Has(space.KnobGPU) {
		return ""
	}
	return fmt.Sprintf("On %d × %s (the gpu knob: run it on nodes of that GPU type; the command has no flag for it).",
		max(rec.GPUs, 1), rec.Config.String(space.KnobGPU))
}

// GPUNote says that the ± compare GPU counts, not only configs, when
// the recommendation and the baseline occupy different ones.
func (rec Recommendation) GPUNote() string {
	if rec.BaselineGPUs < 1 || rec.GPUs < 1 || rec.GPUs == rec.BaselineGPUs {
		return ""
	}
	return fmt.Sprintf("On %d GPUs against the baseline's %d: the ± below compare %d GPUs with %d; per GPU is the fair comparison of the configs.",
		rec.GPUs, rec.BaselineGPUs, rec.GPUs, rec.BaselineGPUs)
}

// FlagLines breaks a shell command's first line before each --flag, with
// a backslash continuation, so no flag wraps in the middle and the text
// still pastes as one command; quoted words are never broken. Lines after
// the first (generated files) are kept as they are.
func FlagLines(cmd string) string {
	first, rest, more := strings.Cut(cmd, "\n")
	var b strings.Builder
	var quote rune
	for i, c := range first {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ' ' && strings.HasPrefix(first[i+1:], "--"):
			b.WriteString(" \\\n  ")
			continue
		}
		b.WriteRune(c)
	}
	if more {
		b.WriteString("\n" + rest)
	}
	return b.String()
}

// simulated reports whether any trial ran on the simulator.
func simulated(ts []store.Trial) bool {
	for _, t := range ts {
		if t.Simulated() {
			return true
		}
	}
	return false
}

func hasPredictions(ts []store.Trial) bool {
	for _, t := range ts {
		if t.Prediction != nil {
			return true
		}
	}
	return false
}

// predictedText is the prior's forecast of the first objective: its
// value with its stated 80% interval where the prior states one
// ("812.00 (80%: 640.00–1030.00)"), "no start" when it predicted the
// config would not start, "-" when it was not asked.
func predictedText(p *store.Prediction) string {
	switch {
	case p == nil:
		return "-"
	case !p.Feasible:
		return "no start"
	case len(p.Values) == 0:
		return "-"
	}
	s := fmtNum(p.Values[0])
	if len(p.Intervals) > 0 && p.Intervals[0] != nil {
		iv := p.Intervals[0]
		s += fmt.Sprintf(" (80%%: %s–%s)", fmtNum(iv.Lo80), fmtNum(iv.Hi80))
	}
	return s
}
