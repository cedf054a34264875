package lab

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

func TestKnobPosition(t *testing.T) {
	cat := space.Param{Name: "k", Kind: space.Categorical, Values: []any{"default", int64(8), int64(32)}}
	boolsReversed := space.Param{Name: "b", Kind: space.Categorical, Values: []any{true, false}}
	one := space.Param{Name: "tp", Kind: space.Categorical, Values: []any{int64(8)}}
	lin := space.Param{Name: "mem", Kind: space.Float, Low: 0.7, High: 0.95, Step: 0.05}
	logr := space.Param{Name: "n", Kind: space.Int, Low: 1, High: 100, Log: true}
	cases := []struct {
		name string
		p    space.Param
		v    any
		want float64
		ok   bool
	}{
		{"first declared", cat, "default", 0, true},
		{"middle declared", cat, int64(8), 0.5, true},
		{"an int given as float is the same value", cat, 32.0, 1, true},
		{"off the list", cat, int64(16), 0, false},
		{"boolean true is 1 whatever the order", boolsReversed, true, 1, true},
		{"boolean false is 0", boolsReversed, false, 0, true},
		{"one value moves nothing", one, int64(8), 0.5, true},
		{"linear low", lin, 0.7, 0, true},
		{"linear middle", lin, 0.825, 0.5, true},
		{"log middle", logr, int64(10), 0.5, true},
		{"log top", logr, int64(100), 1, true},
		{"default on a range is off its domain", lin, "default", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := knobPosition(c.p, c.v)
			if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-9) {
				t.Errorf("knobPosition(%s, %v) = %g, %v; want %g, %v", c.p.Name, c.v, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestHeldOutMetrics(t *testing.T) {
	in := map[string]float64{"total_tps": 100, "total_tps_per_gpu": 10, "goodput_rps": 4, "mean_tpot_ms": 20, "mean_e2e_s": 2,
		"completed": 500, "slo_attainment": 0.9, "not_a_metric": 7}
	got := heldOutMetrics(in, 1.25)
	want := map[string]float64{"total_tps": 125, "total_tps_per_gpu": 12.5, "goodput_rps": 5, "mean_tpot_ms": 16, "mean_e2e_s": 1.6,
		"completed": 500, "slo_attainment": 0.9, "not_a_metric": 7}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("%s = %g, want %g", k, got[k], w)
		}
	}
	if in["total_tps"] != 100 {
		t.Error("heldOutMetrics changed its input")
	}
}

func TestCheckHeldOut(t *testing.T) {
	cases := []struct{ kind, want string }{
		{"", ""},
		{"interaction", ""},
		{"reversed", ""},
		{"threshold", ""},
		{"interation", `unknown held-out kind "interation"; did you mean "interaction"? (known: interaction, reversed, threshold)`},
		{"cliff", `unknown held-out kind "cliff" (known: `},
	}
	for _, c := range cases {
		err := checkHeldOut(c.kind)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v, want nil", c.kind, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%q: %v, want one starting %q", c.kind, err, c.want)
		}
	}
}

// factorsOnGrid is f of kind and seed on every config of the landscape's
// grid, with the grid.
func factorsOnGrid(t *testing.T, sp *space.Space, kind string, seed int64) ([]space.Config, []float64) {
	t.Helper()
	f, err := heldOutFactor(kind, sp, seed)
	if err != nil {
		t.Fatal(err)
	}
	grid := ruleGrid(sp)
	out := make([]float64, len(grid))
	for i, c := range grid {
		out[i] = f(c)
	}
	return grid, out
}

// dependsOnlyOn is whether f is a function of p's value (or its being
// inactive) on the grid.
func dependsOnlyOn(p space.Param, grid []space.Config, fs []float64) bool {
	by := map[string]float64{}
	for i, c := range grid {
		k := "\x00inactive"
		if v, set := c[p.Name]; set {
			k = space.FormatValue(v)
		}
		if v, seen := by[k]; seen && v != fs[i] {
			return false
		}
		by[k] = fs[i]
	}
	return true
}

func distinct(xs []float64) map[float64]bool {
	out := map[float64]bool{}
	for _, x := range xs {
		out[x] = true
	}
	return out
}

// Each kind's factor is what the definition in docs/search.md says, on
// both built-in landscapes and several seeds.
func TestHeldOutFactorsFollowTheDefinition(t *testing.T) {
	for _, name := range Landscapes() {
		sp, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= 6; seed++ {
			t.Run(name, func(t *testing.T) {
				_, fs := factorsOnGrid(t, sp, HeldInteraction, seed)
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, f := range fs {
					lo, hi = min(lo, f), max(hi, f)
				}
				if span := max(math.Log(hi), -math.Log(lo)); math.Abs(span-math.Log(1.1)) > 1e-9 || lo < 1/1.1-1e-9 || hi > 1.1+1e-9 {
					t.Errorf("seed %d: interaction spans [%g, %g], want its largest |ln f| to be ln 1.1", seed, lo, hi)
				}

				grid, fs := factorsOnGrid(t, sp, HeldReversed, seed)
				p, a, err := reversedDraw(sp, heldOutRNG(seed, heldOutReversedSalt))
				if err != nil {
					t.Fatal(err)
				}
				if levels(p) < 3 || math.Abs(a) < reversedLo || math.Abs(a) > reversedHi {
					t.Fatalf("seed %d: reversed on %s (%d values) with slope %g, want three values or more and |a| in [0.1, 0.2]", seed, p.Name, levels(p), a)
				}
				if !dependsOnlyOn(p, grid, fs) || len(distinct(fs)) < 2 {
					t.Fatalf("seed %d: reversed is not a function of %s alone, or constant", seed, p.Name)
				}
				for i, c := range grid {
					want := 1.0
					if z, ok := configPosition(p, c); ok {
						want = 1 + a*(z-0.5)
					}
					if math.Abs(fs[i]-want) > 1e-12 {
						t.Fatalf("seed %d: reversed on %s is %g at %v, want %g", seed, p.Name, fs[i], c, want)
					}
				}

				grid, fs = factorsOnGrid(t, sp, HeldThreshold, seed)
				p, at, b, err := thresholdDraw(sp, heldOutRNG(seed, heldOutThresholdSalt))
				if err != nil {
					t.Fatal(err)
				}
				if at < thresholdLo || at > thresholdHi || math.Abs(b) < thresholdStepLo || math.Abs(b) > thresholdStepHi || levels(p) < 2 {
					t.Fatalf("seed %d: threshold on %s at %g by %g, want t in [0.3, 0.7], |b| in [0.06, 0.15]", seed, p.Name, at, b)
				}
				if !dependsOnlyOn(p, grid, fs) {
					t.Fatalf("seed %d: threshold is not a function of %s alone", seed, p.Name)
				}
				if vals := distinct(fs); len(vals) > 2 || !vals[1] {
					t.Fatalf("seed %d: threshold takes %v, want 1 and at most one step", seed, vals)
				}
				below, above := 0.0, 1.0 // the largest position at 1 and the smallest past the step
				for i, c := range grid {
					z, ok := configPosition(p, c)
					switch {
					case fs[i] == 1+b:
						above = min(above, z)
					case ok:
						below = max(below, z)
					}
				}
				if below > at || above <= at {
					t.Errorf("seed %d: threshold on %s at 1 up to z %g and stepped from %g: not a step at t %g", seed, p.Name, below, above, at)
				}
			})
		}
	}
}

// A seed's factor is the same every time it is drawn, and another seed
// draws another.
func TestHeldOutFactorIsDeterministicPerSeed(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range HeldOutKinds() {
		_, a := factorsOnGrid(t, sp, kind, 3)
		_, b := factorsOnGrid(t, sp, kind, 3)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: seed 3 drew two factors", kind)
		}
		differs := false
		for s := int64(4); s <= 8 && !differs; s++ {
			_, c := factorsOnGrid(t, sp, kind, s)
			differs = !reflect.DeepEqual(a, c)
		}
		if !differs {
			t.Errorf("%s: seeds 3 to 8 drew one factor", kind)
		}
	}
}

// The held-out error only multiplies the family reality's outcomes: the
// seed's cards, skew and request sequence are drawn as without it, the
// outcome of a config is the family's scaled by f(config), and the cache
// keeps the family's outcomes under the family's file, so a cache serves
// every kind and a run without --held-out alike.
func TestHeldOutScalesTheFamilyReality(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const seed = 2
	plain := NewRealityOracle(sp, NewReality(sim.DefaultCards(), seed))
	for _, kind := range HeldOutKinds() {
		f, err := heldOutFactor(kind, sp, seed)
		if err != nil {
			t.Fatal(err)
		}
		r := NewReality(sim.DefaultCards(), seed)
		if want := NewReality(sim.DefaultCards(), seed); !reflect.DeepEqual(r.Cards, want.Cards) || !reflect.DeepEqual(r.Skew, want.Skew) || r.ProfileShift != want.ProfileShift {
			t.Fatalf("%s: the family's draw of seed %d moved", kind, seed)
		}
		r.HeldOut = f
		held := NewRealityOracle(sp, r)
		dir := t.TempDir()
		if held.cacheFile(dir) != plain.cacheFile(dir) {
			t.Errorf("%s: the held-out oracle caches under another file than the family's", kind)
		}
		checked := 0
		for _, c := range ruleGrid(sp)[:40] {
			want, got := plain.Replay(ctx, c), held.Replay(ctx, c)
			if want.err != nil {
				if got.err == nil {
					t.Errorf("%s: %v failed in the family and not under the held-out error", kind, c)
				}
				continue
			}
			checked++
			fc := f(c)
			for _, m := range []string{"total_tps", "mean_e2e_s"} {
				w := want.metrics[m] * fc
				if m == "mean_e2e_s" {
					w = want.metrics[m] / fc
				}
				if math.Abs(got.metrics[m]-w) > 1e-9*math.Abs(w) {
					t.Errorf("%s: %s of %v is %g, want the family's %g under f %g", kind, m, c, got.metrics[m], want.metrics[m], fc)
				}
			}
			if len(got.checkpoints) != len(want.checkpoints) || len(got.checkpoints) == 0 {
				t.Fatalf("%s: %d checkpoints, want the family's %d", kind, len(got.checkpoints), len(want.checkpoints))
			}
			last := len(got.checkpoints) - 1
			if g, w := got.checkpoints[last].Metrics["total_tps"], want.checkpoints[last].Metrics["total_tps"]*fc; math.Abs(g-w) > 1e-9*w {
				t.Errorf("%s: the last checkpoint's total_tps is %g, want %g", kind, g, w)
			}
			if again := held.Eval(ctx, c); again != got {
				t.Errorf("%s: Eval after Replay scaled the outcome again", kind)
			}
		}
		if checked == 0 {
			t.Fatalf("%s: no config of the first 40 ran", kind)
		}
		if err := held.Persist(dir); err != nil {
			t.Fatal(err)
		}
		back := NewRealityOracle(sp, NewReality(sim.DefaultCards(), seed))
		if err := back.Restore(dir); err != nil {
			t.Fatal(err)
		}
		for key, out := range back.cache {
			if want := plain.cache[key]; want != nil && !reflect.DeepEqual(out.metrics, want.metrics) {
				t.Fatalf("%s: the cache kept a held-out outcome for %s", kind, key)
			}
		}
	}
}
