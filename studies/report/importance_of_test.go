package report

import (
	"reflect"
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Knobs whose values always go together in the complete trials are named
// beside each other; a knob that also varied alone is not.
func TestKnobsVariedTogether(t *testing.T) {
	cfg := func(dp, att, mr any) space.Config {
		c := space.Config{"dp": dp, "max_running": mr}
		if att != nil {
			c["attention"] = att
		}
		return c
	}
	pts := []Point{
		{State: store.Complete, Config: cfg(int64(1), nil, int64(64))},
		{State: store.Complete, Config: cfg(int64(8), true, int64(64))},
		{State: store.Complete, Config: cfg(int64(8), true, int64(128))},
		{State: store.Complete, Config: cfg(int64(1), nil, int64(128))},
		// Not complete: it does not count.
		{State: store.Infeasible, Config: cfg(int64(1), true, int64(512))},
	}
	ks := []Knob{{Name: "dp", Numeric: true}, {Name: "attention"}, {Name: "max_running", Numeric: true}}
	got := together(pts, ks)
	want := map[string][]string{"dp": {"attention"}, "attention": {"dp"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("together = %v, want %v", got, want)
	}
}

// A knob only the baseline varied is credited with nothing: the trials
// say nothing of it apart from the baseline's other differences.
func TestImportanceRefusesKnobsOnlyTheBaselineVaried(t *testing.T) {
	engine := Knob{Name: "engine", Levels: []string{"vllm", "sglang"}}
	mr := Knob{Name: "max_running", Numeric: true}
	pt := func(n int, origin, e string, r int64) Point {
		return Point{Trial: n, State: store.Complete, Origin: origin, Config: space.Config{"engine": e, "max_running": r}}
	}
	pts := []Point{pt(1, "baseline", "vllm", 64), pt(2, "sampler", "sglang", 64), pt(3, "sampler", "sglang", 128), pt(4, "sampler", "sglang", 256),
		{Trial: 5, State: store.Failed, Origin: "sampler", Config: space.Config{"engine": "vllm", "max_running": int64(64)}}}
	ok, only := attributable(pts, []Knob{engine, mr})
	if len(ok) != 1 || ok[0].Name != "max_running" || len(only) != 1 || only[0] != "engine" {
		t.Errorf("attributable = %v, baseline only %v; want max_running, and engine refused", ok, only)
	}
}
