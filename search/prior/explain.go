package prior

import (
	"context"
	"math"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// maxOutlookLevels bounds the knobs an outlook covers: a knob with more
// values than this (a range) has no few regions to name.
const maxOutlookLevels = 12

// note records the proposal of c.
func (st *state) note(ctx context.Context, c space.Config, origin string) {
	full := st.sp.WithTargetEngine(c)
	cd := st.tab.predict(ctx, full)
	p := search.Proposal{Origin: origin, Feasible: cd.feasible}
	if cd.feasible {
		p.Predicted = append([]float64(nil), cd.values...)
		p.Intervals = search.PriorIntervals(st.prior, full, p.Predicted)
	}
	if st.hist.proposed == nil {
		st.hist.proposed = map[string]search.Proposal{}
	}
	st.hist.proposed[search.ConfigKey(st.sp, c)] = p
}

// Explain says whether the prior or the inner sampler proposed c, and
// what the prior predicted for it.
func (ps *sampler) Explain(c space.Config) (search.Proposal, bool) {
	p, ok := ps.st.hist.proposed[search.ConfigKey(ps.st.sp, c)]
	return p, ok
}

// Outlook is the prior's best prediction for each value of each knob with
// few values, over every config it screened or predicted.
func (ps *sampler) Outlook() []search.Region {
	return ps.st.tab.outlook()
}

// outlook is Outlook over the table.
func (t *table) outlook() []search.Region {
	var out []search.Region
	for _, p := range t.sp.Params {
		vals, ok := p.Grid()
		if !ok || len(vals) < 2 || len(vals) > maxOutlookLevels {
			continue
		}
		for _, v := range vals {
			out = append(out, t.region(p.Name, space.FormatValue(v)))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Knob < out[j].Knob })
	return out
}

// region is the prior's view of knob = value.
func (t *table) region(knob, value string) search.Region {
	d := len(t.sp.Objectives)
	full, fast := nanSlice(d), nanSlice(d)
	r := search.Region{Knob: knob, Value: value}
	for _, k := range t.order {
		cd := t.cands[k]
		v, ok := cd.cfg[knob]
		if !ok || space.FormatValue(v) != value {
			continue
		}
		if cd.refined && cd.feasible {
			r.Full++
			t.better(full, cd.values)
		} else if cd.fastOK {
			r.Screened++
			t.better(fast, cd.fast)
		}
	}
	r.Best = full
	if r.Full == 0 && r.Screened > 0 {
		r.Best, r.FromScreening = fast, true
	}
	return r
}

// better keeps in best, objective by objective, the better of best and vals.
func (t *table) better(best, vals []float64) {
	for i, o := range t.sp.Objectives {
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
