package report

import (
	"io"
	"testing"
	"time"
)

// BenchmarkReport500 builds and renders the HTML report of a 500-trial
// study (importance, every plot drawn as SVG); the target is ≤ 2 s.
func BenchmarkReport500(b *testing.B) {
	sp, trials := fixtureSpaceOf(b), synthTrials(500)
	m := Meta{Version: "bench", Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	for b.Loop() {
		if err := Build(sp, trials, fixtureRender, m).HTML(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
