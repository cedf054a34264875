package space

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/studies/store/pgurl"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testOptions stands in for the engines and bench packages: SGLang-only
// knobs (DP attention, DeepEP) are unsupported elsewhere.
func testOptions() Options {
	sglangOnly := map[string]bool{"enable_dp_attention": true}
	return Options{
		Engines:  []string{"vllm", "sglang", "trtllm"},
		Supports: func(e, k string) bool { return e == "sglang" || !sglangOnly[k] },
		Profile: func(name string) (bench.Profile, bool) {
			if name == "balanced" {
				return bench.Profile{Name: name, Dataset: "random", InputLen: 8192, OutputLen: 1024, NumPrompts: 1000}, true
			}
			return bench.Profile{}, false
		},
		Metric:      bench.KnownMetric,
		Storage:     pgurl.SecretKeysOf,
		Sampler:     fakeSampler,
		CheckTarget: fakeCards,
		Samples:     500,
		EngineGPUs: func(c Config, t Target) int {
			if n, ok := t.TrialGPUs(c); ok {
				return n
			}
			tp, _ := c.Int("tp")
			dp, _ := c.Int("dp")
			if on, _ := c["enable_dp_attention"].(bool); on {
				return int(max(tp, 1)) // SGLang's DP attention runs inside the TP group
			}
			return int(max(tp, 1) * max(dp, 1))
		},
		RefusedValue: fakeRefusedValue,
		Prior:        fakePrior,
	}
}

// fakeRefusedValue stands in for engines.RefusedValue: vllm 0.10.0 has
// no nvfp4 KV cache.
func fakeRefusedValue(t Target, engine, knob string, value any) error {
	if engine == "vllm" && t.Engines["vllm"].Version == "0.10.0" && knob == "kv_cache_dtype" && value == "nvfp4" {
		return fmt.Errorf("vllm 0.10.0: vllm does not accept %q", value)
	}
	return nil
}

// fakePrior stands in for the simulator prior's check.
func fakePrior(sampler string, t Target) error {
	if sampler == "grid" || sampler == "greedy" {
		return fmt.Errorf("the simulator prior cannot guide the %s sampler", sampler)
	}
	if ps := fakeCards(Target{Runner: "sim", GPU: t.GPU, Model: t.Model}); len(ps) > 0 {
		return fmt.Errorf("%s, so the prior has nothing to simulate", ps[0].Msg)
	}
	return nil
}

// fakeSampler stands in for samplers.Check.
func fakeSampler(name string, objectives int) error {
	switch {
	case name == "cmaes" && objectives > 1:
		return fmt.Errorf("cmaes optimises one objective, this study has %d", objectives)
	case !slices.Contains([]string{"motpe", "tpe", "random", "grid", "cmaes", "greedy", "headroom"}, name):
		return fmt.Errorf("unknown sampler %q", name)
	}
	return nil
}

// fakeCards stands in for the simulator's card lookup.
func fakeCards(t Target) []Problem {
	if t.Runner != "sim" {
		return nil
	}
	var out []Problem
	if !slices.Contains([]string{"H100", "H200"}, t.GPU) {
		out = append(out, Problem{Key: "target.gpu", Msg: fmt.Sprintf("the simulator has no GPU card %q", t.GPU)})
	}
	if !slices.Contains([]string{"m", "Qwen/Qwen3-8B", "zai-org/GLM-5.2-FP8"}, t.Model) {
		out = append(out, Problem{Key: "target.model", Msg: fmt.Sprintf("the simulator has no model card %q", t.Model)})
	}
	return out
}

func TestBrokenSpacesGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.toml")
	if len(files) < 12 {
		t.Fatalf("want at least 12 broken space files, have %d", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(context.Background(), f, testOptions())
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Load(%s) = %v, want a *space.Error", f, err)
			}
			for _, p := range se.Problems {
				// Only a section that is missing altogether has no line.
				if p.Line == 0 && p.Key != "objectives" && p.Key != "params" {
					t.Errorf("problem without a line number: %s", p)
				}
			}
			golden := strings.TrimSuffix(f, ".toml") + ".golden"
			got := err.Error() + "\n"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, rerr := os.ReadFile(golden)
			if rerr != nil {
				t.Fatalf("missing golden file (run go test ./space -update): %v", rerr)
			}
			if got != string(want) {
				t.Errorf("error message changed:\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

func TestQuickstartSpaceIsValid(t *testing.T) {
	sp, err := Load(context.Background(), "../examples/quickstart.toml", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(sp.Objectives); got != 2 {
		t.Errorf("objectives = %d, want 2", got)
	}
	want := []string{"engine", "tp", "dp", "enable_dp_attention", "ep", "mem_fraction", "chunked_prefill", "max_running", "moe_a2a_backend", "deepep_mode", "kv_cache_dtype"}
	if got := names(sp.Params); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("params in declared order = %v, want %v", got, want)
	}
	if sp.Baseline.Engine() != "vllm" {
		t.Errorf("baseline engine = %q", sp.Baseline.Engine())
	}
}

func TestMinimalSpaceDefaults(t *testing.T) {
	sp, err := Load(context.Background(), "testdata/good/minimal.toml", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sp.Study.Sampler != "motpe" || sp.Study.NTrials != 20 || sp.Target.Runner != "sim" || sp.Target.Host != "127.0.0.1" {
		t.Errorf("defaults: %+v %+v", sp.Study, sp.Target)
	}
	if len(sp.Profiles) != 1 || sp.Profiles[0].Name != "balanced" {
		t.Errorf("default profiles = %+v", sp.Profiles)
	}
	p, _ := sp.Param("max_running")
	if p.Kind != Int || !p.Log {
		t.Errorf("max_running = %+v, want a log int range", p)
	}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 200; i++ {
		c := sp.WithTargetEngine(sp.Sample(rng))
		if c.Engine() != "vllm" || !p.Contains(c["max_running"]) {
			t.Fatalf("sample %v outside the space", c)
		}
	}
}

func TestConditionalKnobsFollowWhen(t *testing.T) {
	sp, err := Load(context.Background(), "../examples/quickstart.toml", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	sawDeepEP, sawNone := false, false
	for i := 0; i < 300; i++ {
		c := sp.Sample(rng)
		_, hasMode := c["deepep_mode"]
		if deep := c["moe_a2a_backend"] == "deepep"; deep != hasMode {
			t.Fatalf("deepep_mode present=%v with moe_a2a_backend=%v", hasMode, c["moe_a2a_backend"])
		}
		_, hasDPA := c["enable_dp_attention"]
		if (c.Engine() == "sglang") != hasDPA {
			t.Fatalf("enable_dp_attention present=%v for engine %s", hasDPA, c.Engine())
		}
		sawDeepEP = sawDeepEP || hasMode
		sawNone = sawNone || !hasMode
	}
	if !sawDeepEP || !sawNone {
		t.Error("sampling never reached both sides of the condition")
	}
}

func TestRulesRejectAndAccept(t *testing.T) {
	sp, err := Load(context.Background(), "../examples/quickstart.toml", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cfg  Config
		ok   bool
		name string
	}{
		{Config{"engine": "vllm", "tp": int64(8), "dp": int64(1)}, true, "vllm tp8"},
		{Config{"engine": "vllm", "tp": int64(8), "dp": int64(8)}, false, "vllm dp8 needs 64 GPUs"},
		{Config{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true}, true, "sglang dp attention inside tp"},
		{Config{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": false}, false, "sglang replicas"},
		{Config{"engine": "sglang", "tp": int64(8), "dp": "default", "enable_dp_attention": false}, true, "default dp does not apply"},
	}
	for _, c := range cases {
		if got := sp.Check(c.cfg) == nil; got != c.ok {
			t.Errorf("%s: Check ok=%v, want %v", c.name, got, c.ok)
		}
	}
}

func TestParamGridAndContains(t *testing.T) {
	p := Param{Name: "mem_fraction", Kind: Float, Low: 0.7, High: 0.95, Step: 0.05}
	g, ok := p.Grid()
	if !ok || len(g) != 6 || g[3] != 0.85 {
		t.Fatalf("grid = %v", g)
	}
	for _, v := range g {
		if !p.Contains(v) {
			t.Errorf("grid value %v not contained", v)
		}
	}
	if p.Contains(0.87) || p.Contains(1.0) {
		t.Error("off-step or out-of-range value contained")
	}
}
