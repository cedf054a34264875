package studies

import (
	"fmt"
	"io"
	"strings"
)

// SimulatedNote says, in one sentence, that the values are simulated.
func (r Report) SimulatedNote() string {
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
// simulated.
func (r Report) simTag(open, end string) string {
	if r.Simulated {
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
	head := "Recommended"
	if r.Simulated {
		head += " (simulated)"
	}
	fmt.Fprintf(w, "\n%s:\n", head)
	for _, rec := range r.Recommendations {
		fmt.Fprintf(w, "  %s: trial %d (%s)\n", rec.Goal, rec.Trial, rec.Why)
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
	for _, rec := range r.Recommendations {
		fmt.Fprintf(w, "**%s**: trial %d (%s).", rec.Goal, rec.Trial, rec.Why)
		for _, p := range rec.Profiles {
			fmt.Fprintf(w, " %s: %s.", p.Profile, p.changes())
		}
		fmt.Fprintf(w, "\n\n```sh\n%s\n```\n\n", orDash(FlagLines(rec.Command)))
	}
}

// changes is "total_tps 25416.35 (+404.2%), mean_tpot_ms 123.66 (+44.5%)".
func (p ProfileChange) changes() string {
	parts := make([]string, len(p.Metrics))
	for i, m := range p.Metrics {
		parts[i] = m.Metric + " " + fmtNum(m.Value)
		if m.VsBaseline != nil {
			parts[i] += fmt.Sprintf(" (%+.1f%%)", *m.VsBaseline)
		}
	}
	return strings.Join(parts, ", ")
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
func simulated(ts []Trial) bool {
	for _, t := range ts {
		if t.Simulated() {
			return true
		}
	}
	return false
}

func hasPredictions(ts []Trial) bool {
	for _, t := range ts {
		if t.Prediction != nil {
			return true
		}
	}
	return false
}

// predictedText is the prior's forecast of the first objective: its
// value, "no start" when it predicted the config would not start, "-"
// when it was not asked.
func predictedText(p *Prediction) string {
	switch {
	case p == nil:
		return "-"
	case !p.Feasible:
		return "no start"
	case len(p.Values) == 0:
		return "-"
	}
	return fmtNum(p.Values[0])
}
