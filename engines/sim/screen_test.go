package sim

import (
	"testing"

	"github.com/servetune/servetune/bench"
)

func TestScreeningProfileShortensOnlyLongBenchmarks(t *testing.T) {
	cases := []struct {
		name                         string
		prompts, conc, out           int
		dataset                      string
		wantPrompts, wantConc, wantO int
	}{
		{"balanced", 1000, 512, 1024, "", 512, 512, 512},
		{"unlimited concurrency", 1000, 0, 1024, "", screenPrompts, 0, 512},
		{"short", 100, 4, 100, "", 100, 4, 64},
		{"low concurrency", 1000, 4, 1024, "", screenPrompts, 4, 512},
		{"tiny replies", 1000, 512, 32, "", 512, 512, 32},
		{"sharegpt keeps its replies", 1000, 512, 0, bench.DatasetShareGPT, 512, 512, 0},
	}
	for _, c := range cases {
		p := bench.Profile{Name: c.name, Dataset: c.dataset, NumPrompts: c.prompts, MaxConcurrency: c.conc, OutputLen: c.out, InputLen: 8192}
		got := ScreeningProfile(p)
		if got.NumPrompts != c.wantPrompts || got.MaxConcurrency != c.wantConc || got.OutputLen != c.wantO || got.InputLen != 8192 || got.Name != c.name {
			t.Errorf("%s: %d prompts at %d, %d out → %d at %d, %d out; want %d at %d, %d out", c.name, c.prompts, c.conc, c.out,
				got.NumPrompts, got.MaxConcurrency, got.OutputLen, c.wantPrompts, c.wantConc, c.wantO)
		}
	}
}
