package studies

import (
	"math"
	"slices"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// trialIndex is what the study loop asks of its trial list before every
// trial, kept in step with the list as trials are recorded and updated
// (loop.record, loop.replace, loop.resetTrials, its one owner), so that
// no per-trial question walks the list or renders a config again: each
// trial's config key and reuse key are computed once, counts by key are
// maps, and the incumbents are updated as trials complete. A question
// costs O(1) or O(log n) map and sorted-slice work whatever the number of
// trials recorded.
//
// It indexes positions in the loop's list: an entry is taken out with
// the trial's old record and put back with its new one (tally), so every
// count is the list's at all times.
type trialIndex struct {
	sp    *space.Space
	reuse func(space.Config) string // RunOptions.ReuseKey (nil: the config key)
	// keys are the trials' config keys, by position; reuseOf memoises
	// reuse keys by config key (rendering a command is the costly part).
	keys    []string
	reuseOf map[string]string
	pos     map[int]int    // trial number → position
	first   map[string]int // config key → first position
	done    int            // store.CountDone
	running []int          // positions of running trials, in order
	// runningOf counts running trials that measure a config (not reuses),
	// by config key; settled the trials not interrupted and unpruned those
	// not pruned either, by config key; measured the positions of the
	// measurements (complete or infeasible, not reused), by reuse key.
	runningOf, settled, unpruned map[string]int
	measured                     map[string][]int
	retries                      map[int]int // RetryOf → trials retrying it
	interrupted                  []int       // interrupted trials that retry none
	// baselineRunning and baselineSettled count baseline trials running
	// and not interrupted; baselines are the complete ones' positions.
	baselineRunning, baselineSettled int
	baselines                        []int
	remeasures                       int // noise and confirm trials not interrupted
	// confirms are the positions of the confirm trials not interrupted,
	// by config key.
	confirms  map[string][]int
	gpu       float64
	gpuTrials int // trials that charged GPU time
	// firstValues are the first objective's values of the complete
	// measurements, by config key, with their positions (noiseCV's
	// groups, in list order).
	firstValues map[string][]valueAt
	// repeated are the configs with two first-objective values or more
	// (the only ones the noise is measured from), and noise what
	// noiseCV last said (nil: one of them changed since): asked at every
	// pick and every trial's start, it would otherwise walk every config.
	repeated map[string]bool
	noise    *measuredNoise
	rank     ranking
	groups   groupIndex  // confirmation's config groups
	repeats  repeatIndex // --repeat's short configs
	// pick remembers confirmation's leader among the near-top configs
	// (search.PickMemo): most trials leave them as they were.
	pick search.PickMemo
}

// measuredNoise is noiseCV's answer: the pooled CV and its degrees of
// freedom.
type measuredNoise struct {
	cv float64
	df int
}

type valueAt struct {
	pos int
	v   float64
}

// newTrialIndex indexes ts.
func newTrialIndex(sp *space.Space, reuse func(space.Config) string, ts []store.Trial) *trialIndex {
	x := &trialIndex{sp: sp, reuse: reuse, reuseOf: map[string]string{}, pos: map[int]int{}, first: map[string]int{},
		runningOf: map[string]int{}, settled: map[string]int{}, unpruned: map[string]int{}, measured: map[string][]int{},
		retries: map[int]int{}, confirms: map[string][]int{}, firstValues: map[string][]valueAt{}, repeated: map[string]bool{}, rank: ranking{best: -1}, groups: newGroupIndex()}
	for i := range ts {
		x.added(ts, i)
	}
	return x
}

// added indexes ts[i], the list's newest position.
func (x *trialIndex) added(ts []store.Trial, i int) {
	key := ts[i].Config.Key()
	x.keys = append(x.keys, key)
	if _, ok := x.first[key]; !ok {
		x.first[key] = i
	}
	x.pos[ts[i].Number] = i
	x.tally(ts, i, 1)
}

// tally adds (d = 1) or takes out (d = -1) ts[i]'s part in every count.
func (x *trialIndex) tally(ts []store.Trial, i, d int) {
	t, key := ts[i], x.keys[i]
	if t.State == store.Running {
		x.running = positions(x.running, i, d)
		x.runningOf[key] += d * b2i(t.ReusedFrom == 0)
		x.baselineRunning += d * b2i(t.Origin == "baseline")
	} else if t.State != store.Interrupted && !t.BrokeRule() {
		x.done += d
	}
	if t.State != store.Interrupted {
		x.settled[key] += d
		x.unpruned[key] += d * b2i(t.State != store.Pruned)
		x.baselineSettled += d * b2i(t.Origin == "baseline")
		x.remeasures += d * b2i(t.Origin == "noise" || t.Origin == "confirm")
		if t.Origin == "confirm" {
			x.confirms[key] = positions(x.confirms[key], i, d)
		}
	} else if t.RetryOf == 0 {
		x.interrupted = positions(x.interrupted, i, d)
	}
	if t.RetryOf != 0 {
		x.retries[t.RetryOf] += d
	}
	if t.ReusedFrom == 0 && (t.State == store.Complete || t.State == store.Infeasible) {
		r := x.reuseKey(t.Config, key)
		x.measured[r] = positions(x.measured[r], i, d)
	}
	if t.GPUSeconds != 0 {
		x.gpu += float64(d) * t.GPUSeconds
		x.gpuTrials += d * b2i(t.GPUSeconds > 0)
	}
	if t.State == store.Complete {
		x.complete(ts, i, d)
	}
	if x.repeats.repeat > 0 {
		x.repeats.touched(key, x.reuseKey(t.Config, key))
	}
}

// complete counts a complete trial: a baseline, a measurement of its
// config's first objective, a point of the ranking.
func (x *trialIndex) complete(ts []store.Trial, i, d int) {
	t, key := ts[i], x.keys[i]
	if t.Origin == "baseline" {
		before := x.baseline()
		x.baselines = positions(x.baselines, i, d)
		if x.baseline() != before {
			x.rank.stale = true // relative guards are judged against it
		}
	}
	if t.Origin == "baseline" {
		x.groups.stale = true // every violation is judged against it
	}
	if t.ReusedFrom == 0 {
		x.groups.measured(key, i, d)
		if v := Values(x.sp, t)[0]; !math.IsNaN(v) {
			x.valued(key, valueAt{i, v}, d)
		}
	}
	if d < 0 {
		x.rank.stale = true
	} else if !x.rank.stale {
		x.rank.add(x.sp, ts, i, x.baselineOf(ts))
	}
}

// reuseKey is the reuse key of a config whose config key is key,
// rendered once per config.
func (x *trialIndex) reuseKey(c space.Config, key string) string {
	if x.reuse == nil {
		return key
	}
	r, ok := x.reuseOf[key]
	if !ok {
		r = x.reuse(c)
		x.reuseOf[key] = r
	}
	return r
}

// baseline is the position of the study's finished baseline (Baseline),
// or -1.
func (x *trialIndex) baseline() int {
	if len(x.baselines) == 0 {
		return -1
	}
	return x.baselines[0]
}

func (x *trialIndex) baselineOf(ts []store.Trial) *store.Trial {
	if b := x.baseline(); b >= 0 {
		return &ts[b]
	}
	return nil
}

// measurements is how many times a config was measured (not reused),
// under its reuse key, and the position of the first of them.
func (x *trialIndex) measurements(c space.Config) (int, int) {
	ps := x.measured[x.reuseKey(c, c.Key())]
	if len(ps) == 0 {
		return 0, -1
	}
	return len(ps), ps[0]
}

// valued adds (d = 1) or takes out (d = -1) a first-objective value of
// config key, and forgets the noise if the config was or is repeated.
func (x *trialIndex) valued(key string, v valueAt, d int) {
	before := len(x.firstValues[key])
	x.firstValues[key] = setValue(x.firstValues[key], v, d)
	after := len(x.firstValues[key])
	if before >= 2 || after >= 2 {
		x.noise = nil
	}
	if after >= 2 {
		x.repeated[key] = true
	} else {
		delete(x.repeated, key)
	}
}

// noiseCV is noiseCV(sp, ts) from the configs measured more than once (a
// config measured once adds nothing to the pooled noise).
func (x *trialIndex) noiseCV() (float64, int) {
	if x.noise == nil {
		groups := map[string][]float64{}
		for k := range x.repeated {
			for _, v := range x.firstValues[k] {
				groups[k] = append(groups[k], v.v)
			}
		}
		cv, df := pooledNoise(groups)
		x.noise = &measuredNoise{cv, df}
	}
	return x.noise.cv, x.noise.df
}

// positions inserts (d > 0) or removes (d < 0) i in the sorted set s.
func positions(s []int, i, d int) []int {
	at, found := slices.BinarySearch(s, i)
	switch {
	case d > 0 && !found:
		return slices.Insert(s, at, i)
	case d < 0 && found:
		return slices.Delete(s, at, at+1)
	}
	return s
}

// setValue inserts or removes v in vs, kept in position order.
func setValue(vs []valueAt, v valueAt, d int) []valueAt {
	at, found := slices.BinarySearchFunc(vs, v.pos, func(a valueAt, p int) int { return a.pos - p })
	switch {
	case d > 0 && !found:
		return slices.Insert(vs, at, v)
	case d < 0 && found:
		return slices.Delete(vs, at, at+1)
	}
	return vs
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ranking is the incumbents of the complete trials as points (and
// search.Best and search.Front would pick them), updated as trials
// complete; stale once a trial's point changed or left (the baseline
// finished, a complete trial was rewritten), and then rebuilt once.
type ranking struct {
	stale bool
	best  int   // position of search.Best's point, -1: none
	front []int // positions on the Pareto front (several objectives)
	pts   map[int]search.Point
}

// add ranks the complete trial ts[i] (base: the finished baseline).
func (r *ranking) add(sp *space.Space, ts []store.Trial, i int, base *store.Trial) {
	p := search.Point{Values: Values(sp, ts[i]), Violation: Violation(sp, ts[i], base)}
	if p.Violation > 0 || hasNaN(p.Values) {
		return
	}
	if r.pts == nil {
		r.pts = map[int]search.Point{}
	}
	r.pts[i] = p
	o := sp.Objectives[0]
	if b, ok := r.pts[r.best]; !ok || o.Better(p.Values[0], b.Values[0]) || !o.Better(b.Values[0], p.Values[0]) && i < r.best {
		r.best = i
	}
	if len(sp.Objectives) > 1 {
		r.addFront(sp, i, p)
	}
}

// addFront puts point p (position i) on the front unless a member
// dominates it, and takes off the members it dominates: dominance is a
// strict order, so this is the front of all the points added.
func (r *ranking) addFront(sp *space.Space, i int, p search.Point) {
	for _, f := range r.front {
		if search.Dominates(r.pts[f], p, sp.Objectives) {
			return
		}
	}
	r.front = slices.DeleteFunc(r.front, func(f int) bool { return search.Dominates(p, r.pts[f], sp.Objectives) })
	r.front = positions(r.front, i, 1)
}

func hasNaN(xs []float64) bool {
	return len(xs) == 0 || slices.ContainsFunc(xs, math.IsNaN)
}

// ranked is the ranking, rebuilt from the complete trials if stale.
func (x *trialIndex) ranked(ts []store.Trial) *ranking {
	if !x.rank.stale {
		return &x.rank
	}
	x.rank = *rankingOf(x.sp, ts)
	return &x.rank
}

// incumbents are the positions of the trials a new trial must beat: the
// best one, or the Pareto front ordered as search.Front orders it.
func (x *trialIndex) incumbents(ts []store.Trial) []int {
	return x.ranked(ts).incumbents(x.sp)
}

// rankingOf ranks the complete trials of ts, one by one.
func rankingOf(sp *space.Space, ts []store.Trial) *ranking {
	r, base := &ranking{best: -1}, Baseline(ts)
	for i := range ts {
		if ts[i].State == store.Complete {
			r.add(sp, ts, i, base)
		}
	}
	return r
}

// incumbents are the ranking's incumbents (trialIndex.incumbents).
func (r *ranking) incumbents(sp *space.Space) []int {
	if len(sp.Objectives) == 1 {
		if r.best < 0 {
			return nil
		}
		return []int{r.best}
	}
	front := slices.Clone(r.front)
	o := sp.Objectives[0]
	slices.SortStableFunc(front, func(a, b int) int {
		switch {
		case o.Better(r.pts[a].Values[0], r.pts[b].Values[0]):
			return -1
		case o.Better(r.pts[b].Values[0], r.pts[a].Values[0]):
			return 1
		}
		return 0
	})
	return front
}
