package lab

import (
	"context"
	"reflect"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A restored oracle answers as the one that simulated: the same metrics
// for a config that ran, the same error text and engine failure for one
// that ran out of memory, without simulating again.
func TestOracleCacheRoundTrip(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := NewOracle(sp)
	var ok, oom space.Config
	var ranOut, failed *outcome
	for _, c := range search.Grid(sp) {
		c = sp.WithTargetEngine(c)
		if sp.Check(c) != nil {
			continue
		}
		switch out := a.Eval(ctx, c); {
		case out.err == nil && ok == nil:
			ok, ranOut = c, out
		case out.err != nil && oom == nil:
			oom, failed = c, out
		}
		if ok != nil && oom != nil {
			break
		}
	}
	if ok == nil || oom == nil {
		t.Fatal("the landscape has no config that runs and one that fails")
	}
	a.cache = map[string]*outcome{ok.Key(): ranOut, oom.Key(): failed}
	dir := t.TempDir()
	if err := PersistAll(dir, a); err != nil {
		t.Fatal(err)
	}
	b := NewOracle(sp)
	if err := RestoreAll(dir, b); err != nil {
		t.Fatal(err)
	}
	if len(b.cache) != 2 {
		t.Fatalf("restored %d outcomes, want 2", len(b.cache))
	}
	got := b.cache[ok.Key()]
	if !reflect.DeepEqual(got.metrics, ranOut.metrics) || got.gpuSeconds != ranOut.gpuSeconds || len(got.checkpoints) != len(ranOut.checkpoints) {
		t.Errorf("restored outcome differs: %+v", got)
	}
	bad := b.cache[oom.Key()]
	f, isF := engines.AsFailure(bad.err)
	want, _ := engines.AsFailure(failed.err)
	if bad.err == nil || bad.err.Error() != failed.err.Error() || isF != (want != nil) || (isF && f.Class != want.Class) {
		t.Errorf("restored error %v (failure %v), want %v", bad.err, f, failed.err)
	}
	other := NewOracleOn(sp, Perturb(a.cards, 1))
	if other.cacheFile(dir) == a.cacheFile(dir) {
		t.Error("another reality shares the cache file")
	}
}

// The cache file changes with everything that decides a grid — the
// reality's cards, its skew, its request sequence, the target, the
// simulator's code — and with nothing else, so a stale grid is never
// read back and an unchanged one always is.
func TestCacheKeyCoversWhatDecidesAGrid(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	const dir, code = "/c", "code-a"
	r := NewReality(sim.DefaultCards(), 3)
	base := NewRealityOracle(sp, r).cacheName(dir, code)
	if again := NewRealityOracle(sp, NewReality(sim.DefaultCards(), 3)).cacheName(dir, code); again != base {
		t.Fatalf("the same reality names two files: %s, %s", base, again)
	}
	skew := *r.Skew
	skew.StepCPU *= 1.01
	gpus := *sp
	gpus.Target.GPUs = 4
	variants := map[string]string{
		"simulator code": NewRealityOracle(sp, r).cacheName(dir, "code-b"),
		"cards":          NewRealityOracle(sp, Reality{Cards: Perturb(r.Cards, 1), Skew: r.Skew, ProfileShift: r.ProfileShift}).cacheName(dir, code),
		"skew":           NewRealityOracle(sp, Reality{Cards: r.Cards, Skew: &skew, ProfileShift: r.ProfileShift}).cacheName(dir, code),
		"no skew":        NewRealityOracle(sp, Reality{Cards: r.Cards, ProfileShift: r.ProfileShift}).cacheName(dir, code),
		"request seed":   NewRealityOracle(sp, Reality{Cards: r.Cards, Skew: r.Skew, ProfileShift: r.ProfileShift + 1}).cacheName(dir, code),
		"target":         NewRealityOracle(&gpus, r).cacheName(dir, code),
	}
	for what, name := range variants {
		if name == base {
			t.Errorf("another %s shares the cache file", what)
		}
	}
	if first, again := sim.CodeDigest(), sim.CodeDigest(); first != again || first == "" {
		t.Errorf("the simulator's code digest is not a stable value: %q then %q", first, again)
	}
}

// The exhaustive grid skips the checkpoints; a study's trial replays
// them on the same outcome, and the cache keeps which ones it has.
func TestReplayAddsCheckpointsToACachedOutcome(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := NewOracle(sp)
	var c space.Config
	for _, g := range search.Grid(sp) {
		if g = sp.WithTargetEngine(g); sp.Check(g) == nil && o.Eval(ctx, g).err == nil {
			c = g
			break
		}
	}
	if c == nil {
		t.Fatal("no config of the landscape runs")
	}
	plain := o.Eval(ctx, c)
	if plain.replayed || len(plain.checkpoints) != 0 {
		t.Fatalf("Eval replayed checkpoints: %d", len(plain.checkpoints))
	}
	rep := o.Replay(ctx, c)
	if !rep.replayed || len(rep.checkpoints) == 0 {
		t.Fatal("Replay has no checkpoints")
	}
	if !reflect.DeepEqual(rep.metrics, plain.metrics) || rep.gpuSeconds != plain.gpuSeconds {
		t.Error("replaying the checkpoints changed the outcome")
	}
	dir := t.TempDir()
	if err := o.Persist(dir); err != nil {
		t.Fatal(err)
	}
	back := NewOracle(sp)
	if err := back.Restore(dir); err != nil {
		t.Fatal(err)
	}
	if got := back.cache[c.Key()]; got == nil || !got.replayed || !reflect.DeepEqual(got.checkpoints, rep.checkpoints) {
		t.Error("the cache lost the replayed checkpoints")
	}
}

// Configs the oracle serves from a twin simulate, each on its own, to
// the same outcome: the fingerprint holds everything that decides one.
func TestTwinsSimulateAlike(t *testing.T) {
	for _, name := range []string{"glm52", "qwen3"} {
		sp, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		o := NewOracle(sp)
		groups := map[string][]space.Config{}
		var order []string
		for _, c := range search.Grid(sp) {
			c = sp.WithTargetEngine(c)
			if sp.Check(c) != nil {
				continue
			}
			if k, ok := o.twinKey(c); ok {
				if len(groups[k]) == 0 {
					order = append(order, k)
				}
				groups[k] = append(groups[k], c)
			}
		}
		checked := 0
		for i := 0; i < len(order) && checked < 4; i += 97 {
			g := groups[order[i]]
			if len(g) < 2 {
				continue
			}
			a, b := o.simulate(context.Background(), g[0], true), o.simulate(context.Background(), g[len(g)-1], true)
			if !reflect.DeepEqual(a, b) && !(a.err != nil && b.err != nil && a.err.Error() == b.err.Error()) {
				t.Errorf("%s: twins %s and %s simulate differently", name, g[0].Summary(), g[len(g)-1].Summary())
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: no twins checked", name)
		}
	}
}
