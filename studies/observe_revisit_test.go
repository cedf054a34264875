package studies

import (
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// A resumed study teaches its sampler what it heard live: a config once,
// except a pruned config measured again (a revisit), which it heard twice.
func TestObservationsKeepARevisit(t *testing.T) {
	sp := studySpace(t, 10, "")
	a, b := space.Config{"max_running": int64(8)}, space.Config{"max_running": int64(16)}
	done := map[string]map[string]float64{"p": {"total_tps": 80}}
	ts := []store.Trial{
		{Number: 1, Config: a, State: store.Complete, Metrics: done},
		{Number: 2, Config: a, State: store.Complete, Metrics: done, Origin: "confirm"},
		{Number: 3, Config: b, State: store.Pruned},
		{Number: 4, Config: b, State: store.Pruned, Origin: "sampler"},
		{Number: 5, Config: b, State: store.Complete, Metrics: done, Origin: "revisit"},
	}
	var got []search.State
	for _, o := range observations(sp, ts) {
		got = append(got, o.State)
	}
	want := []search.State{search.Complete, search.Pruned, search.Complete}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("observations %v, want %v", got, want)
	}
}
