package report

import (
	"math"
	"sort"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Forecast is one trial the prior predicted, beside what it measured.
type Forecast struct {
	Trial  int
	Origin string
	State  store.State
	// Predicted and Measured are the objectives (NaN where undefined);
	// ErrPct is measured against predicted in % (NaN unless both are).
	Predicted, Measured, ErrPct []float64
	// NoStart: the prior predicted the config would not start.
	NoStart bool
}

// Forecasts sums up how well the prior predicted: per objective, the
// median absolute % error over the complete trials, and how often it was
// wrong about whether a config starts.
type Forecasts struct {
	Rows []Forecast
	// MedianAbsErrPct per objective (NaN when no trial has both values).
	MedianAbsErrPct []float64
	// StartedAgainst counts configs predicted not to start that
	// completed; RefusedAgainst configs predicted to start that the
	// engine refused (out of memory, invalid).
	StartedAgainst, RefusedAgainst int
}

// forecasts compares the prior's prediction of every trial it predicted
// with the measurement; nil when no trial carries a prediction.
func forecasts(pts []Point, trials []store.Trial, objectives int) *Forecasts {
	f := &Forecasts{}
	errs := make([][]float64, objectives)
	for i, t := range trials {
		if t.Prediction == nil {
			continue
		}
		row := Forecast{Trial: t.Number, Origin: t.Origin, State: t.State, Measured: pts[i].Values, NoStart: !t.Prediction.Feasible}
		row.Predicted, row.ErrPct = nanSlice(objectives), nanSlice(objectives)
		copy(row.Predicted, t.Prediction.Values)
		for o := range objectives {
			if t.State == store.Complete && row.Predicted[o] != 0 && !math.IsNaN(row.Predicted[o]) && !math.IsNaN(row.Measured[o]) {
				row.ErrPct[o] = (row.Measured[o] - row.Predicted[o]) / math.Abs(row.Predicted[o]) * 100
				errs[o] = append(errs[o], math.Abs(row.ErrPct[o]))
			}
		}
		switch {
		case row.NoStart && t.State == store.Complete:
			f.StartedAgainst++
		case !row.NoStart && t.State == store.Infeasible && t.Failure != nil:
			f.RefusedAgainst++
		}
		f.Rows = append(f.Rows, row)
	}
	if len(f.Rows) == 0 {
		return nil
	}
	for _, e := range errs {
		f.MedianAbsErrPct = append(f.MedianAbsErrPct, median(e))
	}
	return f
}

// View is the prior's view of one knob value beside the study's trials
// there: the best it predicted, how many trials ran there and the best
// they measured (objective order, NaN where none).
type View struct {
	Knob, Value   string
	Predicted     []float64
	FromScreening bool
	Trials        int
	Measured      []float64
	// Support says which measurement backs the prediction: "" when a
	// complete trial other than the baseline has the value, "no trial"
	// or "only the baseline" when none does (issue 50: the prior's vLLM
	// figure read as measured where only the baseline ran vLLM).
	Support string
}

// views sets the prior's outlook beside the complete trials of each knob
// value.
func views(sp *space.Space, outlook []store.Region, pts []Point) []View {
	var out []View
	for _, r := range outlook {
		v := View{Knob: r.Knob, Value: r.Value, FromScreening: r.FromScreening, Predicted: nanSlice(len(sp.Objectives)), Measured: nanSlice(len(sp.Objectives))}
		for o, b := range r.Best {
			if b != nil && o < len(v.Predicted) {
				v.Predicted[o] = *b
			}
		}
		others := 0
		for _, p := range pts {
			x, ok := sp.WithTargetEngine(p.Config)[r.Knob]
			if p.State != store.Complete || !ok || space.FormatValue(x) != r.Value {
				continue
			}
			v.Trials++
			if p.Origin != "baseline" {
				others++
			}
			for o, obj := range sp.Objectives {
				if x := p.Values[o]; !math.IsNaN(x) && (math.IsNaN(v.Measured[o]) || obj.Better(x, v.Measured[o])) {
					v.Measured[o] = x
				}
			}
		}
		switch {
		case v.Trials == 0:
			v.Support = "no trial"
		case others == 0:
			v.Support = "only the baseline"
		}
		out = append(out, v)
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func nanSlice(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}
