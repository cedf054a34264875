package report

import (
	"math"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// Point is one trial as the plots and the trial table see it.
type Point struct {
	Trial  int
	State  store.State
	Origin string
	// Class is the engine's failure class ("" when none).
	Class  string
	Config space.Config
	// Values are the objectives, NaN where undefined. A pruned trial
	// carries what its last checkpoint reached (Partial).
	Values  []float64
	Partial bool
	// Feasible: complete with every SLO met.
	Feasible bool
	// Hours is the device time spent up to and including this trial.
	Hours      float64
	GPUSeconds float64
	// GPUs is how many GPUs the trial's deployment occupies: importance
	// reads throughput per GPU when the trials' counts differ.
	GPUs  int
	Why   string
	Where Where
}

func points(sp *space.Space, trials []store.Trial) []Point {
	out := make([]Point, 0, len(trials))
	base := studies.Baseline(trials)
	hours := 0.0
	for _, t := range trials {
		hours += t.GPUSeconds / 3600
		p := Point{Trial: t.Number, State: t.State, Origin: t.Origin, Config: t.Config,
			Values: studies.Values(sp, t), Hours: hours, GPUSeconds: t.GPUSeconds, Why: t.Why(), Where: whereOf(t),
			GPUs: engines.GPUs(t.Config, sp.Target)}
		if t.Failure != nil {
			p.Class = string(t.Failure.Class)
		}
		p.Feasible = t.State == store.Complete && studies.Violation(sp, t, base) == 0
		if t.State == store.Pruned && allNaN(p.Values) && len(t.Intermediate) > 0 {
			p.Values, p.Partial = lastDefined(t.Intermediate[len(t.Intermediate)-1].Values, len(p.Values)), true
		}
		out = append(out, p)
	}
	return out
}

func lastDefined(vs []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
		if i < len(vs) {
			out[i] = vs[i]
		}
	}
	return out
}

func allNaN(xs []float64) bool {
	for _, x := range xs {
		if !math.IsNaN(x) {
			return false
		}
	}
	return true
}

// BestSoFar is the best feasible value of objective obj after each trial,
// as (trial number, device hours, value) steps; it starts at the first
// feasible trial.
func BestSoFar(pts []Point, obj int, dir space.Direction) []Step {
	var out []Step
	best := math.NaN()
	for _, p := range pts {
		v := p.Values[obj]
		if p.Feasible && !math.IsNaN(v) && (math.IsNaN(best) || better(v, best, dir)) {
			best = v
		}
		if !math.IsNaN(best) {
			out = append(out, Step{p.Trial, p.Hours, best})
		}
	}
	return out
}

// Step is one point of a best-so-far curve.
type Step struct {
	Trial int
	Hours float64
	Value float64
}

func better(a, b float64, dir space.Direction) bool {
	if dir == space.Minimize {
		return a < b
	}
	return a > b
}
