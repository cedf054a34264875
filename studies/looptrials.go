package studies

import (
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/studies/store"
)

// The loop's trial list changes in three ways only, here, so the trial
// index (trialindex.go) stays in step with it: a trial starts (record),
// a trial's record is rewritten (replace: it finished, or its lease was
// reclaimed), or a shared store is read again (resetTrials).

// index is the loop's trial index, built from the list when the loop has
// none or the list was extended behind its back (a loop a test builds).
func (l *loop) index() *trialIndex {
	if l.ix == nil || len(l.ix.keys) != len(l.trials) {
		l.ix = newTrialIndex(l.Space, l.ReuseKey, l.trials)
	}
	return l.ix
}

// record appends a trial that started.
func (l *loop) record(t store.Trial) {
	x := l.index()
	l.trials = append(l.trials, t)
	x.added(l.trials, len(l.trials)-1)
}

// replace puts t's newest record in the trial list.
func (l *loop) replace(t store.Trial) {
	x := l.index()
	i, ok := x.pos[t.Number]
	if !ok {
		l.record(t)
		return
	}
	x.tally(l.trials, i, -1)
	if key := t.Config.Key(); key != x.keys[i] {
		l.trials[i] = t // a trial's config never changes; index it afresh if it did
		l.ix = nil
		l.settleSpared(t)
		return
	}
	l.trials[i] = t
	x.tally(l.trials, i, 1)
	l.settleSpared(t)
}

// resetTrials replaces the whole list (a shared store read again).
func (l *loop) resetTrials(ts []store.Trial) {
	l.trials = ts
	l.ix = newTrialIndex(l.Space, l.ReuseKey, ts)
}

// trialView is what a worker reads of the study while it measures a
// trial: the study as it stood when the trial started (the incumbents it
// is judged against are fixed then anyway), taken by the loop's own
// goroutine, so the worker shares nothing with the list the loop goes
// on changing and nothing is copied per trial.
type trialView struct {
	done    int
	best    *store.Trial
	replies map[string][]string
	judge   objective.Judge
	reused  store.Trial
}

// viewFor is t's worker's view.
func (l *loop) viewFor(t store.Trial) *trialView {
	l.noteStart(t)
	v := &trialView{done: l.index().done, best: l.best(), judge: l.judge(t.Origin), reused: l.byNumber(t.ReusedFrom)}
	if b := l.index().baselineOf(l.trials); b != nil {
		v.replies = b.Replies
	}
	return v
}
