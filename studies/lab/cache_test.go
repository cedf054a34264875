package lab

import (
	"context"
	"reflect"
	"testing"

	"github.com/servetune/servetune/engines"
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
