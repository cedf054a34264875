package studies

import (
	"math/rand"
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// repeatByScan is repeatNext by its definition: the first complete
// measurement, in trial order, of a config measured (under its reuse key)
// or running fewer than repeat times.
func repeatByScan(l *loop, repeat int) (space.Config, bool) {
	count := map[string]int{}
	for _, u := range l.trials {
		if u.ReusedFrom == 0 && (u.State == store.Complete || u.State == store.Infeasible) {
			count[l.reuseOf(u.Config)]++
		}
		if u.ReusedFrom == 0 && u.State == store.Running {
			count["running "+u.Config.Key()]++
		}
	}
	for _, u := range l.trials {
		if u.State == store.Complete && u.ReusedFrom == 0 && count[l.reuseOf(u.Config)]+count["running "+u.Config.Key()] < repeat {
			return u.Config, true
		}
	}
	return nil, false
}

func (l *loop) reuseOf(c space.Config) string {
	if l.ReuseKey == nil {
		return c.Key()
	}
	return l.ReuseKey(c)
}

// --repeat's next config from the index is the one a walk of the list
// finds, as trials start, finish (reused or not, in any state), and are
// interrupted, with configs that share a reuse key.
func TestRepeatNextIsTheFirstShortConfig(t *testing.T) {
	sp := studySpace(t, 100, "")
	for _, repeat := range []int{2, 3} {
		rng := rand.New(rand.NewSource(int64(repeat)))
		// max_running 1 and 2 render alike: one measurement counts for both.
		reuse := func(c space.Config) string {
			mr, _ := c.Int("max_running")
			return string(rune('a' + min(mr, 2)))
		}
		l := &loop{RunOptions: RunOptions{Space: sp, Repeat: repeat, ReuseKey: reuse}}
		states := []store.State{store.Complete, store.Complete, store.Failed, store.Infeasible, store.Pruned, store.Interrupted}
		asked := 0
		for i := 1; i <= 300; i++ {
			cfg := space.Config{"max_running": int64(rng.Intn(12)), "engine": "vllm"}
			tr := store.Trial{Number: i, Origin: "sampler", Config: cfg, State: store.Running}
			if rng.Intn(8) == 0 {
				tr.ReusedFrom = 1
			}
			l.record(tr)
			if rng.Intn(4) > 0 {
				tr.State = states[rng.Intn(len(states))]
				l.replace(tr)
			}
			if i > 1 && rng.Intn(10) == 0 { // an earlier trial's record rewritten
				u := l.trials[rng.Intn(i-1)]
				u.State = states[rng.Intn(len(states))]
				l.replace(u)
			}
			want, wok := repeatByScan(l, repeat)
			got, ok := l.repeatNext()
			if ok != wok || ok && got.cfg.Key() != want.Key() {
				t.Fatalf("repeat %d, after %d trials: next %v (%v), want %v (%v)", repeat, i, got.cfg, ok, want, wok)
			}
			asked += b2i(ok)
		}
		if asked == 0 {
			t.Errorf("repeat %d: no repeat was ever due", repeat)
		}
	}
}
