package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// Plot is the data of one figure, independent of how it is drawn; only
// defined values are in it.
type Plot struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Caption string   `json:"caption,omitempty"`
	X       Axis     `json:"x"`
	Y       Axis     `json:"y"`
	Series  []Series `json:"series"`
}

// Axis is a label and, for a categorical knob, the names of its levels
// at 0, 1, 2, ….
type Axis struct {
	Label  string   `json:"label"`
	Levels []string `json:"levels,omitempty"`
}

// Series is one marked group of points, or a line through them.
type Series struct {
	Name   string `json:"name"`
	Style  string `json:"style"`
	Line   bool   `json:"line,omitempty"`
	Points []XY   `json:"points"`
}

// XY is one point and the trial it shows (0 for none).
type XY struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Trial int     `json:"trial,omitempty"`
}

// Outcome styles of marks; scatter draws them in this order (later on top).
const (
	styleComplete = "complete"
	styleSLO      = "slo-missed"
	stylePruned   = "pruned"
	styleOOM      = "oom"
	styleFailed   = "failed"
	styleBaseline = "baseline"
	styleFront    = "front"
	styleBest     = "best"
)

// Plots lists the report's figures: the front (or objective by trial),
// best-so-far by trial and by device hours, one slice per knob, and where
// the study ran out of memory.
func (f Full) Plots() []Plot {
	var out []Plot
	out = append(out, f.frontPlot())
	for i, o := range f.Summary.Objectives {
		out = append(out, f.bestPlot(i, o, false), f.bestPlot(i, o, true))
	}
	for _, k := range f.Knobs {
		out = append(out, f.slicePlot(k))
	}
	if p, ok := f.oomPlot(); ok {
		out = append(out, p)
	}
	drawn := out[:0]
	for _, p := range out {
		if len(p.Series) > 0 { // nothing measured yet: no empty frame
			// A plot is forwarded alone (Markdown's SVG files): it says
			// itself that its values are simulated.
			p.Title += f.SimTag()
			drawn = append(drawn, p)
		}
	}
	return drawn
}

func (f Full) style(p Point) string {
	switch {
	case f.Front[p.Trial] && p.Feasible:
		return styleFront
	case p.Origin == "baseline" && p.State == store.Complete:
		return styleBaseline
	case p.Feasible:
		return styleComplete
	case p.State == store.Complete:
		return styleSLO
	case p.State == store.Pruned:
		return stylePruned
	case p.Class == "oom":
		return styleOOM
	}
	return styleFailed
}

func styleName(s string) string {
	switch s {
	case styleSLO:
		return "SLO missed"
	case stylePruned:
		return "pruned (last checkpoint)"
	case styleOOM:
		return "out of memory"
	case styleFailed:
		return "failed or infeasible"
	case styleFront:
		return "chosen"
	}
	return s
}

// scatter groups points by outcome style in drawing order.
func (f Full) scatter(xy func(Point) (float64, float64, bool)) []Series {
	by := map[string][]XY{}
	for _, p := range f.Points {
		if x, y, ok := xy(p); ok && !math.IsNaN(x) && !math.IsNaN(y) {
			s := f.style(p)
			by[s] = append(by[s], XY{x, y, p.Trial})
		}
	}
	var out []Series
	for _, s := range []string{styleComplete, styleSLO, stylePruned, styleOOM, styleFailed, styleBaseline, styleFront} {
		if len(by[s]) > 0 {
			out = append(out, Series{Name: styleName(s), Style: s, Points: by[s]})
		}
	}
	return out
}

func objLabel(o studies.ObjectiveInfo) string {
	return fmt.Sprintf("%s (%s, %s)", o.Metric, o.Profile, o.Direction)
}

func (f Full) frontPlot() Plot {
	objs := f.Summary.Objectives
	if len(objs) < 2 {
		return Plot{ID: "objective", Title: objs[0].Metric + " of every trial",
			X: Axis{Label: "trial"}, Y: Axis{Label: objLabel(objs[0])},
			Series: f.scatter(func(p Point) (float64, float64, bool) { return float64(p.Trial), p.Values[0], true })}
	}
	p := Plot{ID: "pareto", Title: "Pareto front: " + objs[0].Metric + " vs " + objs[1].Metric,
		X: Axis{Label: objLabel(objs[0])}, Y: Axis{Label: objLabel(objs[1])},
		Series: f.scatter(func(p Point) (float64, float64, bool) { return p.Values[0], p.Values[1], true })}
	for _, s := range p.Series {
		if s.Style == styleFront {
			line := append([]XY(nil), s.Points...)
			sort.Slice(line, func(i, j int) bool { return line[i].X < line[j].X })
			p.Series = append(p.Series, Series{Name: "front", Style: styleFront, Line: true, Points: line})
		}
	}
	p.Caption = f.unplaced()
	return p
}

// unplaced says how many trials have no objective values to place
// (failed before measuring), so the front's picture is not mistaken for
// every trial.
func (f Full) unplaced() string {
	n := 0
	for _, p := range f.Points {
		if allNaN(p.Values) {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d trials measured nothing (failed or infeasible before benchmarking); see the failure summary.", n)
}

func (f Full) bestPlot(i int, o studies.ObjectiveInfo, byHours bool) Plot {
	p := Plot{ID: fmt.Sprintf("best-trial-%d", i), Title: "Best " + o.Metric + " so far by trial",
		X: Axis{Label: "trial"}, Y: Axis{Label: objLabel(o)}}
	if byHours {
		p.ID, p.Title, p.X.Label = fmt.Sprintf("best-hours-%d", i), "Best "+o.Metric+" so far by "+f.Env.Unit, f.Env.Unit
	}
	var line []XY
	for _, s := range BestSoFar(f.Points, i, o.Direction) {
		x := float64(s.Trial)
		if byHours {
			x = s.Hours
		}
		line = append(line, XY{x, s.Value, s.Trial})
	}
	if len(line) > 0 {
		p.Series = []Series{{Name: "best so far", Style: styleBest, Line: true, Points: line}}
	}
	return p
}

func (f Full) slicePlot(k Knob) Plot {
	o := f.Summary.Objectives[0]
	p := Plot{ID: "slice-" + k.Name, Title: o.Metric + " by " + k.Name,
		X: Axis{Label: k.Name}, Y: Axis{Label: objLabel(o)},
		Series: f.scatter(func(p Point) (float64, float64, bool) { return jitter(k, p), p.Values[0], true })}
	if !k.Numeric {
		p.X.Levels = k.Levels
	}
	return p
}

// memoryKnob says whether a knob's name suggests it sets memory pressure
// (the KV cache's share, the batch, the prefill chunk, the context).
func memoryKnob(name string) bool {
	for _, s := range []string{"mem", "max_running", "max_num_seqs", "batch", "chunked", "kv_cache", "ctx", "max_seq", "max_model_len"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

func (f Full) oomPlot() (Plot, bool) {
	var mk []Knob
	for _, k := range f.Knobs {
		if memoryKnob(k.Name) {
			mk = append(mk, k)
		}
	}
	oom := false
	for _, p := range f.Points {
		oom = oom || p.Class == "oom"
	}
	if len(mk) == 0 || !oom {
		return Plot{}, false
	}
	p := Plot{ID: "oom", Title: "Where the study ran out of memory", X: knobAxis(mk[0]),
		Y: Axis{Label: "outcome", Levels: oomOutcomes()}}
	if len(mk) > 1 {
		p.Y = knobAxis(mk[1])
	}
	p.Series = oomSeries(f.Points, mk)
	return p, true
}

func oomOutcomes() []string { return []string{"ran", "out of memory", "other failure"} }

func knobAxis(k Knob) Axis {
	if k.Numeric {
		return Axis{Label: k.Name}
	}
	return Axis{Label: k.Name, Levels: k.Levels}
}

// oomSeries places each trial by its first memory knob and, when there is
// a second, by that one too (else by its outcome), grouped by outcome.
func oomSeries(pts []Point, mk []Knob) []Series {
	by := [3][]XY{}
	for _, pt := range pts {
		g := 2
		switch {
		case pt.State == store.Complete || pt.State == store.Pruned:
			g = 0
		case pt.Class == "oom":
			g = 1
		}
		x, y := jitter(mk[0], pt), float64(g)
		if len(mk) > 1 {
			y = jitter(mk[1], pt)
		}
		if !math.IsNaN(x) && !math.IsNaN(y) {
			by[g] = append(by[g], XY{x, y, pt.Trial})
		}
	}
	var out []Series
	for g, st := range []string{styleComplete, styleOOM, styleFailed} {
		if len(by[g]) > 0 {
			out = append(out, Series{Name: oomOutcomes()[g], Style: st, Points: by[g]})
		}
	}
	return out
}

// jitter spreads trials that share a categorical level a little, by
// trial number, so overlapping marks stay countable.
func jitter(k Knob, p Point) float64 {
	x := k.X(p.Config)
	if k.Numeric {
		return x
	}
	return x + float64(p.Trial*37%21-10)/60
}
