package lab

import (
	"context"
	"testing"

	"github.com/servetune/servetune/search"
)

// BenchmarkOracleGridGLM52 simulates every 32nd config of the GLM-5.2
// landscape's exhaustive grid (192 of 6,144) on a fresh oracle, one
// goroutine: the work of one reality's truth, sampled.
func BenchmarkOracleGridGLM52(b *testing.B) {
	sp, err := Load("glm52")
	if err != nil {
		b.Fatal(err)
	}
	grid := search.Grid(sp)
	for b.Loop() {
		o := NewOracle(sp)
		n := 0
		for i := 0; i < len(grid); i += 32 {
			c := sp.WithTargetEngine(grid[i])
			if sp.Check(c) != nil {
				continue
			}
			o.Eval(context.Background(), c)
			n++
		}
		b.ReportMetric(float64(n), "configs/op")
	}
}
