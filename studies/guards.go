package studies

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// GuardBreak is one complete trial breaking one constraint relative to
// the baseline (a guard) on one profile.
type GuardBreak struct {
	Trial      int    `json:"trial"`
	Profile    string `json:"profile"`
	Constraint string `json:"constraint"`
	// Value is the trial's metric, Bound the guard's bound made absolute
	// by the baseline's value, Baseline that value.
	Value    float64 `json:"value"`
	Bound    float64 `json:"bound"`
	Baseline float64 `json:"baseline"`
}

// guardBreaks lists, trial by trial and in the order of the constraints,
// every guard a complete trial breaks; none until the baseline finished.
func guardBreaks(sp *space.Space, trials []store.Trial, base *store.Trial) []GuardBreak {
	var out []GuardBreak
	for _, t := range trials {
		if t.State != store.Complete {
			continue
		}
		for _, c := range sp.Constraints {
			abs, known := resolve(sp, c, base)
			if !c.Relative || !known {
				continue
			}
			profile := sp.ObjectiveProfile(c.Profile)
			v := metric(t, profile, c.Metric)
			if math.IsNaN(v) || abs.Violation(v) == 0 {
				continue
			}
			out = append(out, GuardBreak{Trial: t.Number, Profile: profile, Constraint: c.Src,
				Value: v, Bound: abs.Bound, Baseline: metric(*base, profile, c.Metric)})
		}
	}
	return out
}

// guardsText lists the trials that break a guard, profile by profile.
func (r Report) guardsText(w io.Writer) {
	if len(r.GuardBreaks) == 0 {
		return
	}
	fmt.Fprintln(w, "\nGuards broken (never the best trial nor on the front):")
	byProfile := map[string][]GuardBreak{}
	var order []string
	for _, g := range r.GuardBreaks {
		if _, ok := byProfile[g.Profile]; !ok {
			order = append(order, g.Profile)
		}
		byProfile[g.Profile] = append(byProfile[g.Profile], g)
	}
	sort.Strings(order)
	for _, p := range order {
		fmt.Fprintf(w, "  %s:\n", p)
		for _, g := range byProfile[p] {
			fmt.Fprintf(w, "    trial %d: %s: %s vs %s (baseline %s)\n", g.Trial, g.Constraint, fmtNum(g.Value), fmtNum(g.Bound), fmtNum(g.Baseline))
		}
	}
}

// ProfileSLO is one profile's latency SLO.
type ProfileSLO struct {
	Profile string    `json:"profile"`
	SLO     bench.SLO `json:"slo"`
}

func profileSLOs(sp *space.Space) []ProfileSLO {
	var out []ProfileSLO
	for _, p := range sp.Profiles {
		if p.SLO != nil {
			out = append(out, ProfileSLO{p.Name, *p.SLO})
		}
	}
	return out
}

// slosText lists the latency SLOs, one line per profile.
func (r Report) slosText(w io.Writer) {
	for _, s := range r.SLOs {
		fmt.Fprintf(w, "Latency SLO (%s): %s\n", s.Profile, s.Bounds())
	}
}

// Bounds reads "ttft <= 500 ms, tpot <= 50 ms".
func (s ProfileSLO) Bounds() string {
	var bounds []string
	for _, b := range []struct {
		name string
		ms   float64
	}{{"ttft", s.SLO.TTFTMs}, {"tpot", s.SLO.TPOTMs}, {"e2el", s.SLO.E2ELMs}} {
		if b.ms > 0 {
			bounds = append(bounds, fmt.Sprintf("%s <= %s ms", b.name, strconv.FormatFloat(b.ms, 'f', -1, 64)))
		}
	}
	return strings.Join(bounds, ", ")
}

// GuardsMarkdown is the SLOs and guardsText as a Markdown table.
func (r Report) GuardsMarkdown(w io.Writer) {
	for _, c := range r.Constraints {
		fmt.Fprintf(w, "\nConstraint: `%s`\n", c)
	}
	for _, s := range r.SLOs {
		fmt.Fprintf(w, "\nLatency SLO (%s): %s\n", s.Profile, s.Bounds())
	}
	if len(r.GuardBreaks) == 0 {
		return
	}
	fmt.Fprint(w, "\n### Guards broken\n\nThese trials are never the best trial nor on the front.\n\n| profile | trial | constraint | value | bound | baseline |\n|---|---|---|---|---|---|\n")
	breaks := append([]GuardBreak(nil), r.GuardBreaks...)
	sort.SliceStable(breaks, func(i, j int) bool { return breaks[i].Profile < breaks[j].Profile })
	for _, g := range breaks {
		fmt.Fprintf(w, "| %s | %d | `%s` | %s | %s | %s |\n", g.Profile, g.Trial, g.Constraint, fmtNum(g.Value), fmtNum(g.Bound), fmtNum(g.Baseline))
	}
}
