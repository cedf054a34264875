package studies

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/samplers"
	"github.com/servetune/servetune/space"
)

// With a ReuseKey, a different config that keys the same (e.g. renders
// the same engine command) reuses the measurement instead of launching.
func TestReuseKeyReusesAnEquivalentConfig(t *testing.T) {
	sp := studySpace(t, 2, "")
	st, dir := openStore(t)
	fr := &fakeRunner{}
	// dp=1 is the engine's default: the key ignores it, as a rendered
	// command would.
	key := func(c space.Config) string {
		d := c.Clone()
		if n, ok := d.Int("dp"); ok && n == 1 {
			delete(d, "dp")
		}
		return d.Key()
	}
	l := &loop{RunOptions: RunOptions{Space: sp, Store: st, Runner: fr, Dir: dir, Repeat: 1, Now: time.Now, OnEvent: func(Event) {}, ReuseKey: key}}
	var err error
	if l.sampler, err = samplers.New(context.Background(), "random", sp, 1, nil, zerolog.Nop(), search.Options{}); err != nil {
		t.Fatal(err)
	}
	a := space.Config{"engine": "vllm", "max_running": int64(16), "mem_fraction": 0.8}
	b := space.Config{"engine": "vllm", "max_running": int64(16), "mem_fraction": 0.8, "dp": int64(1)}
	for _, c := range []space.Config{a, b} {
		runTrial(t, l, next{cfg: c, origin: "sampler"})
	}
	if len(fr.calls) != 1 {
		t.Fatalf("launched %d times, want 1", len(fr.calls))
	}
	if got := l.trials[1]; got.Origin != "reused" || got.ReusedFrom != l.trials[0].Number {
		t.Errorf("second trial %+v, want reused from %d", got, l.trials[0].Number)
	}
}

// runTrial runs one trial of n through the study loop's claim, measure
// and write, as a one-worker study does.
func runTrial(t *testing.T, l *loop, n next) {
	t.Helper()
	l.defaults()
	p := newPool(l)
	ctx := context.Background()
	if err := p.start(ctx, n); err != nil {
		t.Fatal(err)
	}
	if err := p.collect(ctx, <-p.done); err != nil {
		t.Fatal(err)
	}
}
