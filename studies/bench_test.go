package studies

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// BenchmarkQuickstartStudy runs the README's quickstart study (60 trials
// of GLM-5.2-FP8 on 8×H200, balanced profile) on the in-process
// simulator, SQLite writes included.
func BenchmarkQuickstartStudy(b *testing.B) {
	sp, err := space.Load(context.Background(), "../examples/quickstart.toml", space.Options{
		Supports: engines.Supports, Engines: engines.Names(), Profile: bench.Lookup, Metric: bench.KnownMetric,
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		dir := studydir.Of(b.TempDir(), "bench")
		st, err := store.Open(context.Background(), dir.DB(), store.Create)
		if err != nil {
			b.Fatal(err)
		}
		err = Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: objective.NewSimRunner(), Dir: dir, Log: zerolog.Nop()})
		st.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}
