package studies

import (
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// A space's check asks for a simulated target's cards at every knob value
// it judges; they load once per cards source, not once per value.
func TestSpaceOptionsLoadTheCardsOncePerSource(t *testing.T) {
	loads := 0
	opts := SpaceOptions(func(space.Target) (*sim.Cards, error) {
		loads++
		return sim.DefaultCards(), nil
	})
	tg := space.Target{Runner: "sim", Model: "Qwen/Qwen3-8B", GPU: "H100"}
	for _, v := range []any{int64(8), int64(16), int64(32)} {
		if err := opts.RefusedValue(tg, "vllm", "max_running", v); err != nil {
			t.Fatalf("max_running = %v refused: %v", v, err)
		}
	}
	opts.ContextLimit(tg)
	if loads != 1 {
		t.Errorf("cards loaded %d times for one target, want 1", loads)
	}
	other := tg
	other.Sim.Cards = "other.toml"
	opts.ContextLimit(other)
	if loads != 2 {
		t.Errorf("cards loaded %d times for two sources, want 2", loads)
	}
}
