package sim

import (
	"testing"

	"github.com/servetune/servetune/bench"
)

func TestScreeningProfileShortensOnlyLongBenchmarks(t *testing.T) {
	cases := []struct {
		name                  string
		prompts, conc         int
		wantPrompts, wantConc int
	}{
		{"balanced", 1000, 512, screenPrompts, screenPrompts},
		{"unlimited concurrency", 1000, 0, screenPrompts, 0},
		{"short", 100, 4, 100, 4},
		{"concurrency above the prompts", 200, 150, screenPrompts, screenPrompts},
	}
	for _, c := range cases {
		p := bench.Profile{Name: c.name, NumPrompts: c.prompts, MaxConcurrency: c.conc, InputLen: 8192}
		got := ScreeningProfile(p)
		if got.NumPrompts != c.wantPrompts || got.MaxConcurrency != c.wantConc || got.InputLen != 8192 || got.Name != c.name {
			t.Errorf("%s: %d prompts at %d → %+v, want %d at %d, the rest unchanged", c.name, c.prompts, c.conc, got, c.wantPrompts, c.wantConc)
		}
	}
}
