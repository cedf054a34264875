package studies

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/samplers"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// askLog records the batch sizes the loop asks the sampler for.
type askLog struct {
	search.Sampler
	asked []int
}

func (a *askLog) Ask(ctx context.Context, n int, pending []space.Config) ([]space.Config, error) {
	a.asked = append(a.asked, n)
	return a.Sampler.Ask(ctx, n, pending)
}

// Workers ask the sampler for one batch per fill of their free slots: once
// the baseline is done, 3 workers ask for 3 at once, then for each slot
// that frees, never more than the free slots; one worker (the sequential
// study) asks for one at a time.
func TestWorkersAskTheSamplerForABatchOfTheirFreeSlots(t *testing.T) {
	for _, c := range []struct {
		workers   int
		wantFirst int
	}{{1, 1}, {3, 3}} {
		sp := studySpace(t, 8, "")
		st, dir := openStore(t)
		inner, err := samplers.New(context.Background(), "random", sp, 1, nil, zerolog.Nop(), search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		log := &askLog{Sampler: inner}
		l := &loop{RunOptions: RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Repeat: 1, Now: time.Now, OnEvent: func(Event) {},
			Log: zerolog.Nop(), Workers: c.workers, Virtual: c.workers > 1}, sampler: log, leased: c.workers > 1, started: time.Now()}
		if err := l.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(log.asked) == 0 || log.asked[0] != c.wantFirst {
			t.Fatalf("%d workers asked for %v, want a first batch of %d", c.workers, log.asked, c.wantFirst)
		}
		total := 0
		for _, n := range log.asked {
			if n > c.workers {
				t.Errorf("%d workers asked for %d configs at once", c.workers, n)
			}
			total += n
		}
		// Every proposal ran (nothing is packed, and no batch outgrew what
		// n_trials still wanted, so none was dropped):
		// one trial each after the baseline, rule breakers included.
		if total != len(l.trials)-1 || store.CountDone(l.trials) != 8 {
			t.Errorf("%d workers: asked %v (%d configs) for the %d trials after the baseline, %d done", c.workers, log.asked, total, len(l.trials)-1, store.CountDone(l.trials))
		}
	}
}
