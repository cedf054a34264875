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
