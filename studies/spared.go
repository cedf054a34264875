package studies

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/studies/store"
)

// Confirmation asks, at every pick, whether each config's first trial was
// spared by the wave rule (search.PruneRule.Spared): judged against the
// incumbents and the margin the trial started with. Finding those again
// from the trials before it re-ranks them all, once per trial: O(n) per
// trial, seconds per pick past a thousand trials. So the loop keeps what
// each trial it starts is judged against (noteStart) and gives its
// verdict once, when the trial finishes (settleSpared); trials it did not
// start (a resumed study, a peer's) are judged in one pass over the list
// that ranks the trials one at a time (sparedPass). In a sequential study
// both give the verdict the trials before it give: they were all
// finished when it started.

// sparedAgainst is what a running trial will be judged spared against.
type sparedAgainst struct {
	rule   *search.PruneRule
	series [][]search.Checkpoint
}

// sparedState is the loop's spared verdicts by trial number, and what the
// trials in flight are judged against.
type sparedState struct {
	verdict map[int]bool
	against map[int]sparedAgainst
}

// judgedSpared says whether t's verdict can be spared at all.
func (l *loop) judgedSpared(t *store.Trial) bool {
	return l.Prune != nil && !isRemeasure(t.Origin) && t.ReusedFrom == 0
}

// noteStart keeps the incumbents and margin trial t starts against.
func (l *loop) noteStart(t store.Trial) {
	if !l.judgedSpared(&t) {
		return
	}
	a := sparedAgainst{rule: l.noiseAware()}
	for _, inc := range l.incumbents() {
		a.series = append(a.series, inc.Intermediate)
	}
	if l.spare.against == nil {
		l.spare.against = map[int]sparedAgainst{}
	}
	l.spare.against[t.Number] = a
}

// settleSpared gives a finished trial its verdict from what it started
// against (nothing for one still running).
func (l *loop) settleSpared(t store.Trial) {
	a, ok := l.spare.against[t.Number]
	if !ok || t.State == store.Running {
		return
	}
	delete(l.spare.against, t.Number)
	if t.State == store.Complete && l.judgedSpared(&t) {
		l.setSpared(t.Number, a.rule.Spared(t.Intermediate, a.series, l.Space.Objectives))
	}
}

func (l *loop) setSpared(n int, v bool) {
	if l.spare.verdict == nil {
		l.spare.verdict = map[int]bool{}
	}
	l.spare.verdict[n] = v
}

// spared reports whether trial i ran to the end only because the wave
// rule spared it (search.PruneRule.Spared), judged against the incumbents
// and the margin it started with.
func (l *loop) spared(i int) bool {
	t := &l.trials[i] // not copied: asked for every ranked config per pick
	if t.State != store.Complete || !l.judgedSpared(t) {
		return false
	}
	if v, ok := l.spare.verdict[t.Number]; ok {
		return v
	}
	l.sparedPass()
	return l.spare.verdict[t.Number]
}

// sparedPass judges every complete trial without a verdict against the
// trials before it, ranking the list one trial at a time: the incumbents
// of each prefix (as rankingOf ranks it: against the prefix's baseline)
// and the noise its repeats measure (noiseAware).
func (l *loop) sparedPass() {
	sp, ts := l.Space, l.trials
	r, base := &ranking{best: -1}, (*store.Trial)(nil)
	repeats, firsts := map[string][]float64{}, map[string]float64{}
	cv, df := pooledNoise(nil)
	for i := range ts {
		t := &ts[i]
		if _, ok := l.spare.verdict[t.Number]; !ok && t.State == store.Complete && l.judgedSpared(t) {
			rule := *l.Prune
			if df > 0 {
				rule.Margin = math.Max(rule.Margin, noiseMargins*cv)
			}
			var series [][]search.Checkpoint
			for _, p := range r.incumbents(sp) {
				series = append(series, ts[p].Intermediate)
			}
			l.setSpared(t.Number, rule.Spared(t.Intermediate, series, sp.Objectives))
		}
		if t.State != store.Complete {
			continue
		}
		if t.Origin == "baseline" && base == nil {
			base = &ts[i]
			r = rankingOf(sp, ts[:i+1]) // the points before it, against it
		} else {
			r.add(sp, ts, i, base)
		}
		if t.ReusedFrom == 0 {
			if repeated(repeats, firsts, l.index().keys[i], Values(sp, *t)[0]) {
				cv, df = pooledNoise(repeats)
			}
		}
	}
}

// repeated adds v to config key's measurements (firsts: those measured
// once, repeats: those measured more) and says whether the repeats
// changed.
func repeated(repeats map[string][]float64, firsts map[string]float64, key string, v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	if vs, ok := repeats[key]; ok {
		repeats[key] = append(vs, v)
		return true
	}
	if f, ok := firsts[key]; ok {
		delete(firsts, key)
		repeats[key] = []float64{f, v}
		return true
	}
	firsts[key] = v
	return false
}
