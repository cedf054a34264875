package search

import (
	"context"
	"math"
	"sort"

	"github.com/servetune/servetune/space"
)

// Proposal says where a proposed config came from and what the prior
// predicted for it, so a study can record why each trial ran and later
// compare the prediction with the measurement.
type Proposal struct {
	// Origin is "prior" when the prior chose the config, "revisit" when
	// it chose a pruned config again (prior_revisit.go), "sampler" when
	// the inner sampler did.
	Origin string
	// Predicted are the prior's objective values (space order), nil when
	// it predicted none; Feasible whether it predicted the config starts.
	Predicted []float64
	Feasible  bool
	// Intervals are the prior's stated intervals around Predicted (one
	// per objective, nil where it states none), nil when it states none.
	Intervals []*Interval
}

// Explainer is a Sampler that can say where a config it proposed came
// from. Samplers without a prior need not implement it: their proposals
// are all the sampler's own.
type Explainer interface {
	Explain(c space.Config) (Proposal, bool)
}

// Region is the prior's view of one value of one knob: the best values it
// predicted on each objective (space order; NaN when none) among the
// configs with that value it looked at. Full counts those it predicted
// fully; Screened those only screened, whose values Best uses only when
// no full prediction exists (FromScreening).
type Region struct {
	Knob, Value    string
	Best           []float64
	Full, Screened int
	FromScreening  bool
}

// Outlooker is a Sampler that can tell what its prior thinks of the
// regions of the space, tried or not.
type Outlooker interface {
	Outlook() []Region
}

// maxOutlookLevels bounds the knobs an outlook covers: a knob with more
// values than this (a range) has no few regions to name.
const maxOutlookLevels = 12

// note records the proposal of c.
func (ps *priorSampler) note(ctx context.Context, c space.Config, origin string) {
	full := ps.sp.WithTargetEngine(c)
	cd := ps.predict(ctx, full)
	p := Proposal{Origin: origin, Feasible: cd.feasible}
	if cd.feasible {
		p.Predicted = append([]float64(nil), cd.values...)
		p.Intervals = PriorIntervals(ps.prior, full, p.Predicted)
	}
	if ps.proposed == nil {
		ps.proposed = map[string]Proposal{}
	}
	ps.proposed[ConfigKey(ps.sp, c)] = p
}

// Explain says whether the prior or the inner sampler proposed c, and
// what the prior predicted for it.
func (ps *priorSampler) Explain(c space.Config) (Proposal, bool) {
	p, ok := ps.proposed[ConfigKey(ps.sp, c)]
	return p, ok
}

// Outlook is the prior's best prediction for each value of each knob with
// few values, over every config it screened or predicted.
func (ps *priorSampler) Outlook() []Region {
	var out []Region
	for _, p := range ps.sp.Params {
		vals, ok := p.Grid()
		if !ok || len(vals) < 2 || len(vals) > maxOutlookLevels {
			continue
		}
		for _, v := range vals {
			out = append(out, ps.region(p.Name, space.FormatValue(v)))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Knob < out[j].Knob })
	return out
}

// region is the prior's view of knob = value.
func (ps *priorSampler) region(knob, value string) Region {
	d := len(ps.sp.Objectives)
	full, fast := nanSlice(d), nanSlice(d)
	r := Region{Knob: knob, Value: value}
	for _, k := range ps.order {
		cd := ps.cands[k]
		v, ok := cd.cfg[knob]
		if !ok || space.FormatValue(v) != value {
			continue
		}
		if cd.refined && cd.feasible {
			r.Full++
			ps.better(full, cd.values)
		} else if cd.fastOK {
			r.Screened++
			ps.better(fast, cd.fast)
		}
	}
	r.Best = full
	if r.Full == 0 && r.Screened > 0 {
		r.Best, r.FromScreening = fast, true
	}
	return r
}

// better keeps in best, objective by objective, the better of best and vals.
func (ps *priorSampler) better(best, vals []float64) {
	for i, o := range ps.sp.Objectives {
		if i < len(vals) && !math.IsNaN(vals[i]) && (math.IsNaN(best[i]) || o.Better(vals[i], best[i])) {
			best[i] = vals[i]
		}
	}
}

func nanSlice(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}
