package report

import (
	"fmt"
	"io"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// markdownNeighbours writes, for each winner, what the study knows of its
// one-knob neighbours: the summary and warnings in view (a better twin
// one knob away is what the section is for), the table folded.
func (f Full) markdownNeighbours(w io.Writer) {
	if len(f.Summary.Winners) == 0 {
		return
	}
	fmt.Fprintf(w, "## One knob away%s\n\n", f.SimTag())
	fmt.Fprint(w, neighboursIntro+"\n\n")
	for _, rw := range f.Summary.Winners {
		fmt.Fprintf(w, "### Trial %d (%s)\n\n%s.\n\n", rw.Trial, joinNums(rw.Values), rw.NeighbourhoodSummary)
		for _, warn := range rw.NeighbourhoodWarnings {
			fmt.Fprintf(w, "> **Warning:** %s.\n\n", warn)
		}
		if len(rw.Neighbourhood) == 0 {
			continue
		}
		fmt.Fprintf(w, "<details><summary>%d neighbours</summary>\n\n| knob | value | status | what the study knows |\n|---|---|---|---|\n", len(rw.Neighbourhood))
		for _, n := range rw.Neighbourhood {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", n.Knob, mdCell(space.FormatValue(n.Value)), n.Status, mdCell(neighbourKnown(n)))
		}
		fmt.Fprint(w, "\n</details>\n\n")
	}
}

// neighboursIntro says what the section shows and how to read it.
const neighboursIntro = "Each chosen config's neighbours one step of one knob away (the adjacent value of a list, the next grid level of a range): measured (compared beyond the noise the report states), predicted by the study's prior (worse, not worse or better, beyond the chosen config's interval), or not explored. An unexplored or better neighbour may be a better config the study never measured."

// neighbourKnown is what the study knows of a neighbour, in words: its
// measurement and how it compares, or the prior's prediction.
func neighbourKnown(n studies.NeighbourRow) string {
	switch n.Status {
	case studies.NeighbourMeasured:
		runs := "run"
		if n.Measurements != 1 {
			runs = "runs"
		}
		if n.Values == nil {
			return fmt.Sprintf("trial %d, %d %s: %s (%s)", n.Trial, n.Measurements, runs, n.Versus, n.State)
		}
		return fmt.Sprintf("trial %d, %d %s: %s — %s", n.Trial, n.Measurements, runs, joinNums(n.Values), n.Versus)
	case studies.NeighbourPredicted:
		if !n.PredictedFeasible {
			return "predicted not to start — " + n.Versus
		}
		return fmt.Sprintf("predicted %s — %s", joinNums(n.Predicted), n.Versus)
	}
	return "–"
}
