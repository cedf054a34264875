package studies

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// stuckSampler proposes one config again and again, as a sampler whose
// memory disagrees with the store's would.
type stuckSampler struct {
	again space.Config
}

func (s *stuckSampler) Tell(context.Context, search.Observation) error { return nil }

func (s *stuckSampler) Ask(context.Context, int, []space.Config) ([]space.Config, error) {
	return []space.Config{s.again}, nil
}

// stuckStudy runs a study whose sampler only ever proposes cfg, after a
// trial of cfg by another worker was recorded in state.
func stuckStudy(t *testing.T, cfg space.Config, state store.State) ([]store.Trial, error) {
	t.Helper()
	sp := studySpace(t, 4, "")
	st, dir := openStore(t)
	now := time.Now()
	other := store.Trial{Config: sp.WithTargetEngine(cfg), Origin: "sampler", Start: now, Worker: "elsewhere/0"}
	if err := st.ClaimNext(context.Background(), &other, now.Add(time.Hour), store.Caps{Trials: 4, Repeat: 1, Measurements: search.MaxMeasurements}); err != nil {
		t.Fatal(err)
	}
	if state != store.Running {
		other.State = state
		if err := st.Finish(context.Background(), &other); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l := &loop{RunOptions: RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Repeat: 1, Now: time.Now, OnEvent: func(Event) {},
		Log: zerolog.Nop(), Workers: 1, Shared: true, Lease: time.Minute}, sampler: &stuckSampler{again: cfg}, leased: true, started: now}
	err := l.run(ctx)
	if ctx.Err() != nil {
		t.Fatal("the study spun on picks the store refused until the test's deadline")
	}
	trials, _ := st.Trials(context.Background())
	return trials, err
}

// A pruned config proposed again is claimed as a revisit, whoever
// proposes it: as a plain proposal the store refused it as taken while
// the loop asked for it again, forever.
func TestAPrunedConfigProposedAgainIsRevisited(t *testing.T) {
	cfg := space.Config{"max_running": int64(64), "mem_fraction": 0.9, "dp": int64(1)}
	trials, err := stuckStudy(t, cfg, store.Pruned)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		if tr.Origin == "revisit" && tr.State == store.Complete {
			return
		}
	}
	t.Fatalf("no completed revisit of the pruned config in %d trials", len(trials))
}

// A pick the store keeps refusing as taken (here: a config another
// worker is running, proposed regardless) stops the study with an error
// that says so after a bounded number of claims, instead of spinning.
func TestPicksTheStoreKeepsRefusingStopTheStudy(t *testing.T) {
	cfg := space.Config{"max_running": int64(64), "mem_fraction": 0.9, "dp": int64(1)}
	_, err := stuckStudy(t, cfg, store.Running)
	if err == nil || !strings.Contains(err.Error(), "taken") {
		t.Fatalf("run = %v, want an error saying the store refused the picks as taken", err)
	}
}
