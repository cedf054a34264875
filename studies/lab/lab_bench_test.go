package lab

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
)

// benchCache is the lab cache a lab benchmark reads its grids from
// (SERVETUNE_LAB_CACHE, e.g. /tmp/labcache): without one, each truth is an
// exhaustive grid of CPU-hours, not what the benchmarks measure.
func benchCache(b *testing.B) string {
	dir := os.Getenv("SERVETUNE_LAB_CACHE")
	if dir == "" {
		b.Skip("SERVETUNE_LAB_CACHE names no lab cache (e.g. /tmp/labcache)")
	}
	return dir
}

// BenchmarkLabPriorB200 is the lab's heaviest named-reality row, the
// one-objective prior row on studies/lab/realities/h200-is-b200.toml
// (`servetune lab --reality-cards ...`), on a few seeds: profile it with
// -cpuprofile. The grids come from the cache; the prior's scaled machines
// are simulated each iteration unless cached too.
func BenchmarkLabPriorB200(b *testing.B) {
	dir := benchCache(b)
	src, err := os.ReadFile("realities/h200-is-b200.toml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		reality := sim.DefaultCards()
		if err := reality.AddFile("h200-is-b200.toml", src); err != nil {
			b.Fatal(err)
		}
		m := Matrix{Landscapes: []string{"glm52"}, Seeds: benchSeeds(), Trials: 40, NoiseCV: 0.05, Cache: dir, RealityCards: reality}
		runMatrixRow(b, m, func(o *Options) bool { return o.Prior != nil && !o.Multi })
	}
}

// BenchmarkLabPriorFamily is the widened family's one-objective prior row
// (`servetune lab --perturbed`) on a few seeds.
func BenchmarkLabPriorFamily(b *testing.B) {
	dir := benchCache(b)
	for b.Loop() {
		sp, err := Load("glm52")
		if err != nil {
			b.Fatal(err)
		}
		prior := NewOracle(sp)
		if err := RestoreAll(dir, prior); err != nil {
			b.Fatal(err)
		}
		tmp := b.TempDir()
		opt := Options{Expert: Expert("glm52"), Landscape: "glm52", Seeds: benchSeeds(), Trials: 40, NoiseCV: 0.05, Dir: tmp, Log: zerolog.Nop(),
			Samplers: []string{"motpe"}, Prune: true, Cache: dir, Prior: prior}
		if _, err := EvaluatePerturbed(context.Background(), sp, []Options{opt}); err != nil {
			b.Fatal(err)
		}
		if err := PersistAll(dir, prior); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSeeds is how many seeds a lab benchmark runs (SERVETUNE_LAB_SEEDS,
// default 3).
func benchSeeds() int {
	n := 3
	if s := os.Getenv("SERVETUNE_LAB_SEEDS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	return n
}

// runMatrixRow runs the matrix's studies that keep selects, against the
// cached grid.
func runMatrixRow(b *testing.B, m Matrix, keep func(*Options) bool) {
	b.Helper()
	ctx := context.Background()
	sp, err := Load("glm52")
	if err != nil {
		b.Fatal(err)
	}
	o, prior := m.oracles(sp)
	if err := RestoreAll(m.Cache, o, prior); err != nil {
		b.Fatal(err)
	}
	grid, err := o.Exhaust(ctx)
	if err != nil {
		b.Fatal(err)
	}
	m.Samplers, m.Prior, m.Pruning = []string{"motpe"}, true, true
	for _, opt := range m.Runs("glm52", prior, b.TempDir(), zerolog.Nop()) {
		if keep(&opt) {
			if _, err := evaluateOn(ctx, o, grid, sp, opt); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := PersistAll(m.Cache, o, prior); err != nil { // as the command does
		b.Fatal(err)
	}
}
