package studies

import (
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func TestWarmStartOffersTheWinnersCutToTheNewSpace(t *testing.T) {
	old := studySpace(t, 3, "")
	cfg := func(mr int64) space.Config {
		return space.Config{"engine": engines.VLLM, "max_running": mr, "mem_fraction": 0.9, "dp": int64(1), "gone": int64(3)}
	}
	trials := []store.Trial{
		{Number: 1, State: store.Complete, Config: cfg(16), Metrics: map[string]map[string]float64{"p": {"total_tps": 100}}},
		{Number: 2, State: store.Complete, Config: cfg(64), Metrics: map[string]map[string]float64{"p": {"total_tps": 300}}},
		{Number: 3, State: store.Failed, Config: cfg(128)},
	}
	cases := []struct {
		name   string
		engine string // the new space's target engine
		want   space.Config
	}{
		{"the target names the engine", engines.VLLM, space.Config{"engine": engines.VLLM, "max_running": int64(64), "mem_fraction": 0.9, "dp": int64(1)}},
		{"no target engine, no engine knob", "", space.Config{"max_running": int64(64), "mem_fraction": 0.9, "dp": int64(1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp := studySpace(t, 3, "")
			sp.Target.Engine = c.engine
			got := WarmStart(old, trials, sp)
			if len(got) != 1 || got[0].Key() != c.want.Key() {
				t.Errorf("WarmStart = %v, want [%v]", got, c.want)
			}
		})
	}
}
