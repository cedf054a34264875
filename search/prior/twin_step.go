package prior

import (
	"context"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// Twins the measurements separate. A twin of a measured config (a config
// the prior predicts exactly the same values for: on Qwen3-8B a dozen
// attention-backend and CUDA-graph variants of one config) is closed to
// the prior's picks and to local search, because measuring it teaches the
// prior nothing. That holds while reality agrees with the simulator that
// the knobs they differ in do not matter; when it does not (a CUDA-graph
// size whose order reality reverses, two knobs that only pay together),
// the optimum is often a twin of the incumbent, one knob away, and is
// never measured: the report names the twin 4–8% below it (issue 46).
//
// So on the prior's own turn a twin competes with the prior's pick on
// one scale, expected improvement over the best measured config in log
// space (the turns the prior leaves to the sampler stay the sampler's:
// a twin step there took the sampler's first finds, and one that took
// the turns the prior left took the prior's later picks too). The
// prior's pick is its corrected prediction, uncertain by what the
// prior's corrected predictions miss beyond the noise (priorSpread). A
// twin is its measured twin's mean moved by the residual's difference
// between them, uncertain by τ, the simulator's error among twins
// (twinSpread): the spread of measured twins' means beyond the noise,
// shrunk toward the prior's own miss. That belief is the study's own
// measurement, not a constant: a simulator whose corrected predictions
// miss configs it tells apart by a few percent is believed to miss
// configs it cannot tell apart by as much until measured twins say
// otherwise. Each twin measured adds to the evidence either way.

// twinEIFloor is the least expected improvement (log ratio, ~1%) a twin
// must offer to take a turn: a fifth of the 5% noise, so a twin of the
// incumbent runs once τ is about 2.5% and one 5% below it once τ is
// about 5%.
const twinEIFloor = 0.01

// assumedCV is the noise the twins' spread is judged against while the
// study has repeated few configs (studies.DefaultNoiseCV), pooled with
// the measured one as the report pools it (search.PriorCV).
const assumedCV = 0.05

// twinMean is one measured config of a twin group: its mean log value on
// the first objective (larger is better) and how many measurements make
// it.
type twinMean struct {
	y float64
	n int
}

// twinPriorDF is how many degrees of freedom of measured twins the
// belief (the prior's own miss, priorSpread) is worth: twins that agree
// shrink it by a third after one pair.
const twinPriorDF = 2.0

// twinSpread is the variance of the true log values among twins beyond
// the noise cv, from the groups of measured twins (each group the configs
// sharing one prediction; groups of one say nothing): the within-group
// sum of squares about each group's mean, less what noise alone would
// give (cv²/n of each config, times 1 − 1/m in a group of m), pooled with
// the belief prior (a variance) at twinPriorDF degrees of freedom over
// the groups' degrees of freedom.
func twinSpread(groups [][]twinMean, cv, prior float64) float64 {
	ss, noise, df := 0.0, 0.0, 0
	for _, g := range groups {
		m := len(g)
		if m < 2 {
			continue
		}
		mean := 0.0
		for _, x := range g {
			mean += x.y
		}
		mean /= float64(m)
		for _, x := range g {
			ss += (x.y - mean) * (x.y - mean)
			noise += cv * cv / float64(max(1, x.n)) * (1 - 1/float64(m))
		}
		df += m - 1
	}
	return (twinPriorDF*prior + max(0, ss-noise)) / (twinPriorDF + float64(df))
}

// minTwinMisses is how many measured misses of the prior the twin step
// needs before it judges: two. A study completes only 2–10 configs in 40
// trials (the rest are pruned), so the prior's share's minErrTrials (5)
// let the step be consulted once in 10 held-out interaction studies.
const minTwinMisses = 2

// priorSpread is the variance of the prior's corrected predictions'
// misses beyond the noise cv: the mean square of its last errWindow
// misses (log ratios) less cv²; ok false before minTwinMisses misses.
func priorSpread(errs []float64, cv float64) (float64, bool) {
	if len(errs) < minTwinMisses {
		return 0, false
	}
	recent := errs[max(0, len(errs)-errWindow):]
	ss := 0.0
	for _, e := range recent {
		ss += e * e
	}
	return max(0, ss/float64(len(recent))-cv*cv), true
}

// twinEI is the expected improvement of a value distributed N(d, σ²)
// over 0 (d: its expected lead over the best, log ratio).
func twinEI(d, sigma float64) float64 {
	if sigma <= 0 {
		return max(0, d)
	}
	z := d / sigma
	return sigma*math.Exp(-z*z/2)/math.Sqrt(2*math.Pi) + d*search.NormCDF(z)
}

// measuredTwin is a measured config as the twin step reads it.
type measuredTwin struct {
	cfg space.Config
	cd  *candidate
	twinMean
}

// twinEvidence groups the measured configs (at their means, sign-adjusted
// log values of the first objective) by their full prediction, and
// returns them with τ² and the prior's own spread σ²; ok false while
// the prior has too few misses to judge.
func (ls *localSearch) twinEvidence() (ms []measuredTwin, tau2, sigma2 float64, ok bool) {
	st := ls.st
	sign := 1.0
	if st.sp.Objectives[0].Direction == space.Minimize {
		sign = -1
	}
	var out []measuredTwin
	groups := map[string][]twinMean{}
	for _, m := range st.hist.measuredMeans() {
		cd := st.tab.cands[search.ConfigKey(st.sp, m.cfg)]
		if cd == nil || !cd.refined || !cd.feasible || !(m.values[0] > 0) {
			continue
		}
		tm := twinMean{sign * math.Log(m.values[0]), m.n}
		out = append(out, measuredTwin{m.cfg, cd, tm})
		k := valuesKey(cd.values)
		groups[k] = append(groups[k], tm)
	}
	cv := assumedCV
	if cvm, df := ls.st.hist.repeatNoise(); df > 0 {
		cv = search.PriorCV(cvm, df, assumedCV)
	}
	sigma2, ok = priorSpread(st.trust.errs, cv)
	if !ok {
		return nil, 0, 0, false
	}
	// In key order: a float sum in map order would differ in its last
	// bits from run to run, and a study must replay alike.
	var gs [][]twinMean
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		gs = append(gs, groups[k])
	}
	return out, twinSpread(gs, cv, sigma2), sigma2, true
}

// twinStep proposes, in place of the prior's fresh pick, the unmeasured
// twin of a measured config near the best with the highest expected
// improvement, when that reaches twinEIFloor and beats the pick's (one
// objective only); false when none does.
func (ls *localSearch) twinStep(ctx context.Context, pick space.Config, taken map[string]bool) (space.Config, bool) {
	st := ls.st
	// Not in the warm start: its picks are the prior's first look at the
	// region, and a twin measured lucky there (family seed 2: a 1.142
	// config read 1.070 at trial 3) became an incumbent that pruned the
	// rest of the study.
	if len(st.sp.Objectives) != 1 || st.asked <= warmStart || st.hist.incumbent == nil || st.originOf(pick) != "prior" {
		return nil, false
	}
	ms, tau2, sigma2, ok := ls.twinEvidence()
	if !ok || len(ms) == 0 {
		return nil, false
	}
	best := math.Inf(-1)
	for _, m := range ms {
		best = max(best, m.y)
	}
	sign := 1.0
	if st.sp.Objectives[0].Direction == space.Minimize {
		sign = -1
	}
	type cand struct {
		cd    *candidate
		start *measuredTwin
		ei    float64
	}
	var cs []cand
	seen := map[string]bool{}
	for i := range ms {
		a := &ms[i]
		// Twins of the best measured config only: on the family (whose
		// twins are truly equal) twins of a config 4% below the best took
		// the prior's turn from its own pick of the optimum (seed 19).
		if a.y < best {
			continue
		}
		fastA := ls.screening(ctx, a.cfg)
		st.tab.screenAround(ctx, a.cfg)
		sigma := math.Sqrt(tau2)
		for _, c := range st.tab.neighbours(a.cfg) {
			k := search.ConfigKey(st.sp, c)
			cd := st.tab.cands[k]
			if cd == nil || seen[k] || st.tab.told[k] || taken[k] || !cd.fastOK || valuesKey(cd.fast) != fastA {
				continue
			}
			seen[k] = true
			d := a.y - best + sign*(st.tab.residOf(0, cd)-st.tab.residOf(0, a.cd))
			if ei := twinEI(d, sigma); ei >= twinEIFloor {
				cs = append(cs, cand{cd, a, ei})
			}
		}
	}
	// The twin competes with the prior's pick for the turn, on the
	// pick's corrected prediction uncertain by the prior's own miss.
	bar := pickEI(st, pick, best, math.Sqrt(sigma2))
	cs = slices.DeleteFunc(cs, func(c cand) bool { return c.ei <= bar })
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].ei > cs[j].ei })
	for i, c := range cs {
		if i >= localRefine {
			break
		}
		cd := st.tab.predict(ctx, c.cd.cfg)
		if ctx.Err() != nil {
			return nil, false
		}
		if cd.feasible && valuesKey(cd.values) == valuesKey(c.start.cd.values) {
			return cd.cfg, true
		}
	}
	return nil, false
}

// screening is the screening prediction's key of a measured config: its
// own when it was screened, else screened now (a config the sampler
// proposed was fully predicted only), remembered.
func (ls *localSearch) screening(ctx context.Context, c space.Config) string {
	k := search.ConfigKey(ls.st.sp, c)
	if v, ok := ls.screened[k]; ok {
		return v
	}
	if ls.screened == nil {
		ls.screened = map[string]string{}
	}
	v, _ := ls.st.tab.pred.fast(ctx, c)
	if ctx.Err() != nil {
		return ""
	}
	s := valuesKey(v)
	ls.screened[k] = s
	return s
}

// pickEI is the expected improvement of the prior's pick over best (log
// space, larger is better) with its corrected prediction uncertain by
// sigma; 0 when the pick has no usable prediction.
func pickEI(st *state, pick space.Config, best, sigma float64) float64 {
	cd := st.tab.cands[search.ConfigKey(st.sp, pick)]
	if cd == nil {
		return 0
	}
	vals, ok := st.estimate(cd)
	s, ok := st.tab.score(cd, vals, ok, 0)
	if !ok {
		return 0
	}
	return twinEI(s-best, sigma)
}
