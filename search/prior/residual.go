package prior

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// residual learns log(real / predicted) per objective as an additive model
// over knob values: a global mean plus, for each knob value seen, its
// mean deviation from the global one, shrunk toward zero while it rests
// on few trials. It corrects a prior that is off by a constant factor
// (a slower GPU) and one that is off for some knob values (DeepEP slower
// than simulated) without needing more trials than knob values.
type residual struct {
	obj []residualObj
	// ver counts the changes (add, addPruned): a candidate's memoised
	// corrections (table.residOf) hold while it is unchanged.
	ver int
}

type residualObj struct {
	n   int
	sum float64
	// by knob=value: sum and count of residuals.
	bySum map[string]float64
	byN   map[string]int
	// pSum and pN: pruned trials' projected residuals by engine=value
	// (residual_pruned.go).
	pSum map[string]float64
	pN   map[string]int
}

// shrink is how many trials a knob value's deviation is worth half its
// weight.
const shrink = 2.0

func newResidual(objectives int) *residual {
	r := &residual{obj: make([]residualObj, objectives)}
	for i := range r.obj {
		r.obj[i] = residualObj{bySum: map[string]float64{}, byN: map[string]int{}, pSum: map[string]float64{}, pN: map[string]int{}}
	}
	return r
}

func (r *residual) add(obj int, c space.Config, v float64) {
	if obj >= len(r.obj) || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	o := &r.obj[obj]
	r.ver++
	o.n++
	o.sum += v
	ks := search.KnobKeys(c)
	for _, k := range ks {
		o.bySum[k] += v
		o.byN[k]++
	}
}

// predict is the expected log(real / predicted) for c on objective obj; 0
// before any trial.
func (r *residual) predict(obj int, c space.Config) float64 {
	if obj >= len(r.obj) || r.obj[obj].n == 0 {
		return 0
	}
	o := &r.obj[obj]
	mean := o.sum / float64(o.n)
	est := mean
	dev, pruned := o.prunedDev(c, mean)
	est += dev
	for _, k := range search.KnobKeys(c) {
		n := o.byN[k]
		if n == 0 {
			if !pruned {
				est += o.trend(k, mean)
			}
			continue
		}
		if n == o.n {
			continue
		}
		dev := o.bySum[k]/float64(n) - mean
		est += dev * float64(n) / (float64(n) + shrink)
	}
	return est
}
