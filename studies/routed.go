package studies

import (
	"fmt"
	"io"
	"math"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// A real runner's study that simulates the GPU types it does not own
// (target.simulated_gpus, issue 51) reports which values it measured
// and which the simulator predicted: each row and recommendation names
// its source, a simulated one with the simulator's stated interval, and
// the report picks the best config of every GPU type (GPUTypes) so the
// owned type's measured pick stands beside the simulated types'. A study
// with runner = "sim", or one that simulates no type, reports as before:
// none of these fields is filled.

// Sources of a reported value.
const (
	SourceMeasured  = "measured"
	SourceSimulated = "simulated"
)

// GPUTypePick is the best config of one GPU type on the first objective,
// under the constraints: measured on the type the study owns, simulated
// on the others. Best is absent when no trial of the type completed
// within them.
type GPUTypePick struct {
	GPU    string `json:"gpu"`
	Source string `json:"source"`
	Best   *Row   `json:"best,omitempty"`
}

// routes reports whether sp's study simulates some GPU types beside the
// measured one, so its report separates them.
func routes(sp *space.Space) bool {
	return sp.Target.Runner != "sim" && len(sp.Target.SimulatedGPUs) > 0
}

// separates reports whether the report names each row's source: its
// study simulates some GPU types beside the measured one.
func (r Report) separates() bool { return len(r.SimulatedGPUs) > 0 }

// sourceOf is where t's values come from.
func sourceOf(t store.Trial) string {
	if t.Simulated() {
		return SourceSimulated
	}
	return SourceMeasured
}

// objectiveIntervals are the simulator's stated intervals around t's
// objective values, in objective order (nil for an objective it states
// none for); nil when it states none.
func objectiveIntervals(sp *space.Space, t store.Trial) []*store.Interval {
	out := make([]*store.Interval, len(sp.Objectives))
	stated := false
	for i, o := range sp.Objectives {
		if iv, ok := t.Intervals[sp.ObjectiveProfile(o.Profile)][o.Metric]; ok {
			out[i], stated = &iv, true
		}
	}
	if !stated {
		return nil
	}
	return out
}

// gpuTypePicks is, for each GPU type of the gpu knob in its order, the
// best feasible complete trial on the first objective, as row makes it.
func gpuTypePicks(sp *space.Space, trials []store.Trial, base *store.Trial, objs []ObjectiveInfo, row func(store.Trial) Row) []GPUTypePick {
	p, ok := sp.Param(space.KnobGPU)
	if !ok || len(objs) == 0 {
		return nil
	}
	var out []GPUTypePick
	for _, v := range p.Values {
		gpu := space.FormatValue(v)
		pick := GPUTypePick{GPU: gpu, Source: SourceMeasured}
		if sp.Target.Simulates(gpu) {
			pick.Source = SourceSimulated
		}
		var best *store.Trial
		var bestV float64
		for i, t := range trials {
			if t.State != store.Complete || sp.Target.GPUOf(t.Config) != gpu || Violation(sp, t, base) != 0 {
				continue
			}
			if v := Values(sp, t)[0]; !math.IsNaN(v) && (best == nil || better(objs[0], v, bestV)) {
				best, bestV = &trials[i], v
			}
		}
		if best != nil {
			b := row(*best)
			pick.Best = &b
		}
		out = append(out, pick)
	}
	return out
}

// IntervalText is " [95%: lo–hi]" after a value with a stated interval,
// "" for none.
func IntervalText(iv *store.Interval) string {
	if iv == nil {
		return ""
	}
	return fmt.Sprintf(" [95%%: %s–%s]", fmtNum(iv.Lo95), fmtNum(iv.Hi95))
}

// sourceText is how a row's source reads: "measured", or "simulated"
// with the first objective's interval.
func (r Report) sourceText(rw Row) string {
	if rw.Source != SourceSimulated {
		return rw.Source
	}
	if len(rw.Intervals) > 0 && rw.Intervals[0] != nil {
		iv := rw.Intervals[0]
		return fmt.Sprintf("simulated, 95%% interval %s–%s", fmtNum(iv.Lo95), fmtNum(iv.Hi95))
	}
	return "simulated (no interval stated)"
}

// BuyNote is the sentence a recommendation of a simulated GPU type
// carries: its values are the simulator's, so measure before buying, and
// the best measured config is named beside it ("" for a measured pick).
func (r Report) BuyNote(rec Recommendation) string {
	if rec.Source != SourceSimulated {
		return ""
	}
	s := fmt.Sprintf("Simulated on %s: measure before buying (no trial ran on %s; its values are the simulator's, with its 95%% interval).", rec.GPU, rec.GPU)
	for _, p := range r.GPUTypes {
		if p.Source == SourceMeasured && p.Best != nil {
			s += fmt.Sprintf(" The best measured config is trial %d on %s.", p.Best.Trial, p.GPU)
		}
	}
	return s
}

// GPUTypeLines are the best config of every GPU type, one line each,
// measured and simulated named apart ("H100: trial 7, usd_per_mtok_output
// 1.23, measured"); the text, Markdown and HTML reports list them.
func (r Report) GPUTypeLines() []string {
	if len(r.GPUTypes) == 0 || len(r.Objectives) == 0 {
		return nil
	}
	o := r.Objectives[0]
	var out []string
	for _, p := range r.GPUTypes {
		if p.Best == nil {
			out = append(out, fmt.Sprintf("%s: no trial completed within the constraints (%s)", p.GPU, p.Source))
			continue
		}
		out = append(out, fmt.Sprintf("%s: trial %d, %s %s, %s", p.GPU, p.Best.Trial, o.Metric, fmtMetric(o.Metric, p.Best.Values[0]), r.sourceText(*p.Best)))
	}
	return out
}

// gpuTypesText writes GPUTypeLines under a heading, each after prefix.
func (r Report) gpuTypesText(w io.Writer, head, prefix string) {
	lines := r.GPUTypeLines()
	if len(lines) == 0 {
		return
	}
	fmt.Fprint(w, head)
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s\n", prefix, l)
	}
}

// SourceTag is "; measured" or "; simulated" after a recommendation's
// reason in a study that simulates some GPU types ("" otherwise).
func (rec Recommendation) SourceTag() string {
	if rec.Source == "" {
		return ""
	}
	return "; " + rec.Source
}
