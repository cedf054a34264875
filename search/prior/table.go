package prior

import (
	"context"
	"math"
	"math/rand"
	"strconv"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// table is the prior's candidate table: every config it screened or
// predicted, in screening order (determinism), with its predictions;
// which of them were told; the predictions of the told (twins); and the
// residual that corrects every prediction by what the trials measured.
// Screening, refinement and Tell write it; the proposers read it.
type table struct {
	sp    *space.Space
	pred  *predictor
	rng   *rand.Rand
	cands map[string]*candidate
	order []string // candidate keys in screening order
	told  map[string]bool
	// around holds the configs whose neighbours were screened.
	around map[string]bool
	// twins holds the predictions of the configs told (valuesKey).
	twins map[string]bool
	resid *residual
	// budget is how many full predictions the current proposal may still
	// make (-1: no limit, at start-up).
	budget int
}

// candidate is a screened config: fast is its screening prediction,
// values its full one once refined.
type candidate struct {
	cfg      space.Config
	fast     []float64
	fastOK   bool
	values   []float64
	feasible bool
	refined  bool
	// resid and every memoise what the proposals ask of every screened
	// candidate each time they rank them — its residual corrections and
	// its regions' share of turns — which change only when a trial is told:
	// recomputed each time, they made a proposal's cost grow with the
	// trials recorded (issue 49).
	resid residMemo
	every everyMemo
}

func newTable(sp *space.Space, p search.Prior, rng *rand.Rand) *table {
	return &table{sp: sp, pred: &predictor{prior: p}, rng: rng, cands: map[string]*candidate{}, told: map[string]bool{},
		around: map[string]bool{}, twins: map[string]bool{}, resid: newResidual(len(sp.Objectives)), budget: -1}
}

// predict returns c's candidate, fully predicted.
func (t *table) predict(ctx context.Context, c space.Config) *candidate {
	k := search.ConfigKey(t.sp, c)
	cd := t.cands[k]
	if cd == nil {
		cd = &candidate{cfg: c}
		t.cands[k] = cd
		t.order = append(t.order, k)
	}
	if !cd.refined {
		v, ok := t.pred.full(ctx, c)
		if ctx.Err() != nil {
			return cd // cut short: not a prediction, and the run is over
		}
		cd.values, cd.feasible, cd.refined = v, ok && len(v) == len(t.sp.Objectives), true
		if cd.fast == nil {
			cd.fast, cd.fastOK = cd.values, cd.feasible
		}
	}
	return cd
}

// learn adds a completed trial's measured values against cd, its
// prediction on the current machine, to the residual.
func (t *table) learn(c space.Config, values []float64, cd *candidate) {
	for i, v := range values {
		if v > 0 && cd.values[i] > 0 {
			t.resid.add(i, c, math.Log(v/cd.values[i]))
		}
	}
}

// relearn rebuilds what the prior learnt against its predictions — the
// residual over the completed trials and the pruned ones' projections,
// and the told configs' twins — on the current machine's predictions.
func (t *table) relearn(ctx context.Context, measured, pruned []measuredConfig) {
	t.resid = newResidual(len(t.sp.Objectives))
	for _, mc := range measured {
		if cd := t.predict(ctx, mc.cfg); cd.feasible {
			t.learn(mc.cfg, mc.values, cd)
		}
	}
	for _, mc := range pruned {
		t.learnPruned(mc, t.predict(ctx, mc.cfg))
	}
	t.twins = map[string]bool{}
	for _, k := range t.order {
		if cd := t.cands[k]; t.told[k] && cd.refined && cd.feasible {
			t.twins[valuesKey(cd.values)] = true
		}
	}
}

// valuesKey identifies a prediction up to rounding.
func valuesKey(v []float64) string {
	var b []byte
	for _, x := range v {
		b = strconv.AppendFloat(b, x, 'g', 9, 64)
		b = append(b, ' ')
	}
	return string(b)
}
