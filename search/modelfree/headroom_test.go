package modelfree

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

func TestReadOOM(t *testing.T) {
	for _, c := range []struct {
		msg   string
		dir   int
		short float64
	}{
		// SGLang's head (activations) too small: 141 GiB GPU, 4 GiB wanted, 1 GiB free.
		{"CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 140.00 GiB of which 1024.00 MiB is free.", -1, 3.0 / 140},
		{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 3 has a total capacity of 80.00 GiB of which 0.00 MiB is free. Including non-PyTorch memory", -1, 0.5 / 80},
		{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 80.00 GiB of which 0 bytes is free. Including non-PyTorch memory", -1, 0.5 / 80}, // PyTorch prints an exhausted GPU in bytes
		{"CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 80.00 GiB of which 512.00 KiB is free.", -1, (2 - 0.5/1024) / 80},
		// more free than wanted (fragmentation): the direction without a figure
		{"CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 80.00 GiB of which 2048.00 MiB is free.", -1, 0},
		{"ValueError: Free memory on device cuda:0 (60.5/79.2 GiB) on startup is less than desired GPU memory utilization (0.9, 71.3 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.", -1, (71.3 - 60.5) / 79.2},
		{"RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.", -1, 0},
		{"Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.7", 1, 0},
		{"No available memory for the cache blocks", 1, 0},
		{"To serve at least one request with the model's max seq len (202752), (12.37 GiB KV cache is needed, which is larger than the available KV cache memory (3.10 GiB). Based on the available memory, the estimated maximum model length is 50782.", 1, 0},
		{"out of memory", 0, 0},
		{"", 0, 0},
	} {
		got := readOOM(c.msg)
		if got.dir != c.dir || math.Abs(got.short-c.short) > 1e-9 {
			t.Errorf("readOOM(%.50q…) = %+v, want dir %d short %.5f", c.msg, got, c.dir, c.short)
		}
	}
}

func TestFractionOut(t *testing.T) {
	down := oomAdvice{dir: -1, short: 0.1}
	for _, c := range []struct {
		a     oomAdvice
		at, x float64
		want  bool
	}{
		{down, 0.95, 0.9, true}, {down, 0.95, 0.85, false}, {down, 0.95, 0.8, false},
		{down, 0.9, 0.8, false}, {down, 0.9, 0.8 + 1e-5, true}, // the shortfall exactly fits
		{oomAdvice{dir: -1}, 0.9, 0.9, true}, {oomAdvice{dir: -1}, 0.9, 0.85, false},
		{oomAdvice{dir: 1}, 0.75, 0.75, true}, {oomAdvice{dir: 1}, 0.75, 0.7, true}, {oomAdvice{dir: 1}, 0.75, 0.8, false},
		{oomAdvice{dir: 1, short: 0.1}, 0.7, 0.75, true}, {oomAdvice{dir: 1, short: 0.1}, 0.7, 0.85, false},
		{oomAdvice{}, 0.9, 0.95, false},
	} {
		if got := fractionOut(c.a, c.at, c.x); got != c.want {
			t.Errorf("fractionOut(%+v, %v, %v) = %v, want %v", c.a, c.at, c.x, got, c.want)
		}
	}
}

func TestRepairFractions(t *testing.T) {
	vals := []any{0.7, 0.75, 0.8, 0.85, 0.9, 0.95}
	for _, c := range []struct {
		at   float64
		a    oomAdvice
		want any
	}{
		{0.95, oomAdvice{dir: -1, short: 0.12}, 0.8}, // straight to the cliff, not one step down
		{0.95, oomAdvice{dir: -1}, 0.9},              // no figure: one step
		{0.75, oomAdvice{dir: -1, short: 0.2}, nil},  // nothing low enough
		{0.7, oomAdvice{dir: 1}, 0.75},               // the pool too small: one step up
		{0.7, oomAdvice{dir: 1, short: 0.11}, 0.85},  // by its shortfall
		{0.95, oomAdvice{dir: 1}, nil},               // nothing higher
	} {
		got := repairFractions(vals, c.at, c.a)
		if (c.want == nil) != (len(got) == 0) || len(got) > 0 && got[0] != c.want {
			t.Errorf("repairFractions(%v, %+v) = %v, want %v first", c.at, c.a, got, c.want)
		}
	}
}

// torchOOMMessage is PyTorch's message for a GPU of 100 GiB short of
// short × 100 GiB.
func torchOOMMessage(short float64) string {
	return fmt.Sprintf("CUDA out of memory. Tried to allocate %.2f GiB. GPU 0 has a total capacity of 100.00 GiB of which 0.00 MiB is free.", 100*short)
}

func TestFractionMemoryPlacesTheCliff(t *testing.T) {
	sp := scootSpace()
	fam := newFamilies(sp, validGrid(sp))
	cfg := func(engine string, dp int64, mem float64, mr int64) space.Config {
		c := space.Config{"engine": engine, "dp": dp, "mem_fraction": mem, "max_running": mr, "mode": "auto"}
		if engine == "sglang" {
			c["enable_dp_attention"] = dp == 8
		}
		return c
	}
	oom := func(c space.Config, msg string) search.Observation {
		return search.Observation{Config: c, State: search.Infeasible, Class: search.ClassOOM, Message: msg}
	}
	f := newFractionMemory(fam)
	f.tell(cfg("sglang", 8, 0.95, 256), oom(cfg("sglang", 8, 0.95, 256), torchOOMMessage(0.12)))
	for _, c := range []struct {
		c    space.Config
		want bool
		why  string
	}{
		{cfg("sglang", 8, 0.85, 256), true, "below the OOM's fraction, above its shortfall"},
		{cfg("sglang", 8, 0.85, 512), true, "more running requests"},
		{cfg("sglang", 8, 0.8, 256), false, "within the shortfall"},
		{cfg("sglang", 8, 0.85, 128), false, "fewer running requests: outside the cone"},
		{cfg("sglang", 1, 0.9, 256), false, "another family"},
	} {
		if got := f.predict(c.c); got != c.want {
			t.Errorf("%s: predict(%v) = %v, want %v", c.why, c.c, got, c.want)
		}
	}
	// A completed run inside what the OOM rules out ends its evidence.
	f.tell(cfg("sglang", 8, 0.9, 512), search.Observation{State: search.Complete, Values: []float64{1}})
	if f.predict(cfg("sglang", 8, 0.85, 256)) {
		t.Error("an OOM contradicted by a completed run still rules out")
	}
	// vLLM's pool too small: the fractions below the OOM fail, those above may run.
	v := newFractionMemory(fam)
	v.tell(cfg("vllm", 1, 0.75, 256), oom(cfg("vllm", 1, 0.75, 256), "No available memory for the cache blocks"))
	if !v.predict(cfg("vllm", 1, 0.7, 256)) || v.predict(cfg("vllm", 1, 0.8, 256)) {
		t.Errorf("vLLM pool OOM at 0.75: 0.7 ruled out %v (want true), 0.8 %v (want false)", v.predict(cfg("vllm", 1, 0.7, 256)), v.predict(cfg("vllm", 1, 0.8, 256)))
	}
	// A message that says nothing falls back on the cone above the OOM.
	n := newFractionMemory(fam)
	n.tell(cfg("sglang", 8, 0.9, 256), oom(cfg("sglang", 8, 0.9, 256), "out of memory"))
	if !n.predict(cfg("sglang", 8, 0.95, 256)) || n.predict(cfg("sglang", 8, 0.85, 256)) {
		t.Error("an OOM without advice does not rule out its cone alone")
	}
}

// scootLandscapeSaying is scootLandscape with the engines' messages: an
// OOM at a high fraction says by how much memory was short (PyTorch's
// format, on a 100 GiB GPU), one at vLLM's low end that the cache pool
// is too small. say false strips them.
func scootLandscapeSaying(say bool) func(space.Config) search.Observation {
	return func(c space.Config) search.Observation {
		o := scootLandscape(c)
		if o.State != search.Infeasible || !say {
			return o
		}
		mem, _ := c.Float("mem_fraction")
		dp, _ := c.Int("dp")
		switch {
		case c.Engine() == "vllm":
			o.Message = "No available memory for the cache blocks"
		case dp == 8:
			o.Message = torchOOMMessage(mem - 0.82)
		default:
			o.Message = torchOOMMessage(mem - 0.92)
		}
		return o
	}
}

// trialsToOptimum is, over seeds 1..9, the median number of trials a
// sampler needs to measure the landscape's optimum (n+1 when it does not
// within n).
func trialsToOptimum(t *testing.T, sp *space.Space, name string, n int, f func(space.Config) search.Observation) float64 {
	t.Helper()
	opt := 0.0
	for _, c := range search.Grid(sp) {
		if o := f(sp.WithTargetEngine(c)); o.State == search.Complete {
			opt = max(opt, o.Value)
		}
	}
	var r []float64
	for seed := int64(1); seed <= 9; seed++ {
		s, err := newSampler(context.Background(), name, sp, seed, nil, zerolog.Nop(), search.Options{NoFeasibility: true})
		if err != nil {
			t.Fatal(err)
		}
		at := n + 1
		for i := 1; i <= n && at > n; i++ {
			c, err := searchtest.AskOne(s)
			if err != nil {
				t.Fatal(err)
			}
			o := f(sp.WithTargetEngine(c))
			if o.State == search.Complete && o.Value >= opt*(1-1e-9) {
				at = i
			}
			if err := s.Tell(context.Background(), o); err != nil {
				t.Fatal(err)
			}
		}
		r = append(r, float64(at))
	}
	return searchtest.Median(r)
}

// What the messages are worth: with them headroom measures the optimum
// (at the dp=8 family's cliff) in fewer trials than scoot and than
// itself without them (the repairs and the placed cliff read them).
func TestHeadroomReadsTheShortfall(t *testing.T) {
	sp := scootSpace()
	with := trialsToOptimum(t, sp, "headroom", 40, scootLandscapeSaying(true))
	without := trialsToOptimum(t, sp, "headroom", 40, scootLandscapeSaying(false))
	scoot := trialsToOptimum(t, sp, "scoot", 40, scootLandscapeSaying(true))
	t.Logf("trials to the optimum, median of 9: headroom %.0f (without messages %.0f), scoot %.0f", with, without, scoot)
	if with >= scoot || with >= without {
		t.Errorf("headroom with messages needs %.0f trials, not fewer than scoot's %.0f and its own without them %.0f", with, scoot, without)
	}
}

func TestShortfallEstimatedFromTheFamily(t *testing.T) {
	// 100 GiB GPU at fraction 0.8: 4 GiB wanted, 6 GiB free, so 14 GiB
	// of the 20 outside the fraction held something else.
	seen := readOOM("CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 100.00 GiB of which 6144.00 MiB is free.")
	g, ok := seen.outsideGiB(0.8)
	if !ok || math.Abs(g-14) > 1e-9 {
		t.Fatalf("outsideGiB = %v, %v; want 14, true", g, ok)
	}
	// At 0.95 nothing was free: the figure alone says 4 GiB short (0.04),
	// the family's 14 GiB outside says 4 + 14 − 5 = 13 GiB (0.13).
	none := readOOM("CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 100.00 GiB of which 0.00 MiB is free.")
	if _, ok := none.outsideGiB(0.95); ok {
		t.Error("nothing free: outsideGiB claims a figure")
	}
	if got := none.estimated(0.95, 14).short; math.Abs(got-0.13) > 1e-9 {
		t.Errorf("estimated shortfall %v, want 0.13", got)
	}
	if got := none.estimated(0.95, 0).short; math.Abs(got-0.04) > 1e-9 {
		t.Errorf("estimate below the figure's bound: %v, want 0.04", got)
	}
	if got := seen.estimated(0.8, 30).short; math.Abs(got-seen.short) > 1e-9 {
		t.Errorf("a message with figures re-estimated: %v, want its own %v", got, seen.short)
	}
}

// The proposal after an OOM that says by how much is that config at the
// highest fraction that fits, before the design goes on; a message that
// says nothing gets no repair.
func TestHeadroomProposesTheRepairNext(t *testing.T) {
	sp := scootSpace()
	ctx := context.Background()
	c := space.Config{"engine": "sglang", "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.95, "max_running": int64(256), "mode": "auto"}
	for _, msg := range []string{torchOOMMessage(0.12), "out of memory"} {
		s, err := newSampler(ctx, "headroom", sp, 1, nil, zerolog.Nop(), search.Options{NoFeasibility: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Tell(ctx, search.Observation{Config: c, State: search.Infeasible, Class: search.ClassOOM, Message: msg}); err != nil {
			t.Fatal(err)
		}
		next, err := searchtest.AskOne(s)
		if err != nil {
			t.Fatal(err)
		}
		want := c.Clone()
		want["mem_fraction"] = 0.8
		repaired := search.ConfigKey(sp, next) == search.ConfigKey(sp, want)
		if repaired != (msg != "out of memory") {
			t.Errorf("after %q the next proposal is %v (repaired: %v)", msg, next, repaired)
		}
	}
}
