package engines

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// samples gives each knob a non-default value every engine that supports
// it can render; the conformance suite renders, parses and re-renders them.
func samples(engine string) space.Config {
	c := space.Config{
		KnobTP: int64(2), KnobDP: int64(2), KnobEnableDPAttention: true, KnobEP: int64(4),
		KnobMemFraction: 0.85, KnobChunkedPrefill: int64(4096), KnobMaxRunning: int64(128),
		KnobKVCacheDType: "fp8_e4m3", KnobMoEA2ABackend: "deepep", KnobDeepEPMode: "low_latency",
		KnobSpeculativeAlgorithm: "EAGLE3", KnobSpeculativeDraftModel: "org/draft",
		KnobSpeculativeNumSteps: int64(3), KnobSpeculativeEagleTopK: int64(1),
		KnobSpeculativeNumDraftTokens: int64(4), KnobSpeculativeNumTokens: int64(3),
		KnobCUDAGraphMaxBS: int64(64), KnobAttentionBackend: "flashinfer", KnobTorchCompile: true,
		KnobPrefixCaching: false, KnobDisableCUDAGraph: true, KnobMaxModelLen: int64(32768), KnobKVOffloadGB: 16.0,
		KnobFlashAttention: true, KnobMaxQueue: int64(64), KnobNumCtx: int64(8192), KnobNumBatch: int64(256), KnobNumThread: int64(4),
	}
	if engine == "ollama" {
		c[KnobKVCacheDType] = "q8_0" // its quantized caches are GGML's
	}
	out := space.Config{}
	for k, v := range c {
		if Supports(engine, k) {
			out[k] = v
		}
	}
	return out
}

// conformanceCase is how the suite runs one adapter: the versions it
// renders for, the model it serves and whether Parse inverts Render (an
// engine whose knobs are all environment and Modelfile, as Ollama's,
// parses back only its program).
type conformanceCase struct {
	versions  []string
	model     string
	roundTrip bool
}

// conformanceCases holds a case for every registered adapter; the suite
// fails on one it does not cover.
var conformanceCases = map[string]conformanceCase{
	"vllm":   {[]string{"0.11.0", "0.12.0", ""}, "org/model", true},
	"sglang": {[]string{"0.5.6", ""}, "org/model", true},
	"trtllm": {[]string{"1.0.0", ""}, "org/model", true},
	"ollama": {[]string{"0.5.7", ""}, "/models/model.gguf", false},
}

// TestConformance runs the same contract against every adapter: each knob
// renders alone and all together, Parse inverts Render, "default" renders
// nothing, and an unsupported knob is an InvalidConfig naming both.
func TestConformance(t *testing.T) {
	for _, e := range all() {
		name := e.Name()
		c, ok := conformanceCases[name]
		if !ok || len(c.versions) == 0 {
			t.Errorf("adapter %s has no conformance case: add it to conformanceCases", name)
			continue
		}
		if _, isParser := e.(Parser); c.roundTrip && !isParser {
			t.Errorf("adapter %s is no Parser, yet its case expects Parse to invert Render", name)
		}
		for _, ver := range c.versions {
			t.Run(name+"@"+ver, func(t *testing.T) { conformance(t, name, ver, c) })
		}
	}
}

func conformance(t *testing.T, name, ver string, c conformanceCase) {
	tgt := space.Target{Model: c.model, Engine: name, Engines: map[string]space.EngineTarget{name: {Version: ver}}}
	base, err := Render(space.Config{}, tgt)
	if err != nil {
		t.Fatal(err)
	}
	all := samples(name)
	if name == "trtllm" {
		delete(all, KnobCUDAGraphMaxBS) // null cuda_graph_config takes no size
	}
	if ver == "0.11.0" {
		delete(all, KnobKVOffloadGB) // no --kv-offloading-size yet (TestKVKnobs)
	}
	var sets []space.Config
	for _, k := range all.Keys() {
		single := space.Config{k: all[k]}
		if k == KnobEP { // vLLM derives EP from tp×dp
			single[KnobTP], single[KnobDP] = all[KnobTP], all[KnobDP]
			if name != "vllm" {
				delete(single, KnobDP)
			}
			if name == "trtllm" {
				delete(single, KnobTP)
			}
		}
		if k == KnobDeepEPMode && name == "vllm" {
			single[KnobMoEA2ABackend] = "deepep"
		}
		if k == KnobKVOffloadGB && name == "sglang" {
			single[KnobTP] = all[KnobTP] // per-rank --hicache-size
		}
		if strings.HasPrefix(k, "speculative_") && k != KnobSpeculativeAlgorithm {
			single[KnobSpeculativeAlgorithm] = all[KnobSpeculativeAlgorithm]
		}
		if k == KnobKVCacheDType && name == "ollama" {
			single[KnobFlashAttention] = true // a quantized cache needs it
		}
		sets = append(sets, single)
	}
	if name == "sglang" {
		// The hierarchical cache needs the radix cache the samples turn off.
		all = with(all, func(c space.Config) { delete(c, KnobKVOffloadGB) })
	}
	sets = append(sets, all)
	for _, cfg := range sets {
		cmd, err := Render(cfg, tgt)
		if err != nil {
			t.Errorf("Render(%s): %v", cfg.Summary(), err)
			continue
		}
		if reflect.DeepEqual(cmd.Argv, base.Argv) && len(cmd.Env) == 0 && len(cmd.Files) == 0 {
			t.Errorf("Render(%s) is the default command: the knob had no effect", cfg.Summary())
		}
		args := materialize(t, cmd)
		p, err := ParseArgs(name, args, Latest())
		if err != nil || len(p.Extra) > 0 {
			t.Errorf("Parse(Render(%s)) = %v, extra %v", cfg.Summary(), err, p.Extra)
			continue
		}
		if !c.roundTrip {
			if len(p.Config) != 1 || !slices.Equal(cmd.Argv, base.Argv) {
				t.Errorf("Parse(Render(%s)) = %v from argv %q; want no knob from the program alone (%q)", cfg.Summary(), p.Config, cmd.Argv, base.Argv)
			}
			continue
		}
		for k, v := range cmd.Env { // env-only spellings cannot be parsed back
			if k == "VLLM_ATTENTION_BACKEND" {
				p.Config[KnobAttentionBackend] = v
			}
			if k == "VLLM_ALL2ALL_BACKEND" {
				_ = parseAll2All(&parser{out: p}, v)
			}
		}
		again, err := Render(p.Config, tgt)
		if err != nil {
			t.Errorf("Render(Parse(Render(%s))) = %v", cfg.Summary(), err)
			continue
		}
		if cmd.Shell() != again.Shell() || !reflect.DeepEqual(cmd.Files, again.Files) {
			t.Errorf("round trip of %s:\n first %s\n again %s", cfg.Summary(), cmd.Shell(), again.Shell())
		}
	}
	defaults := space.Config{}
	for k := range samples("vllm") {
		defaults[k] = space.Default
	}
	for k := range samples("sglang") {
		defaults[k] = space.Default
	}
	for k := range samples(name) {
		defaults[k] = space.Default
	}
	if cmd, err := Render(defaults, tgt); err != nil || cmd.Shell() != base.Shell() {
		t.Errorf("all-default config = %q, %v; want %q", cmd.Shell(), err, base.Shell())
	}
	for _, k := range []string{KnobTP, KnobDP, KnobEnableDPAttention, KnobSpeculativeNumSteps, KnobSpeculativeNumTokens, KnobMoEA2ABackend, "no_such_knob"} {
		if Supports(name, k) {
			continue
		}
		_, err := Render(space.Config{k: int64(2)}, tgt)
		f, ok := AsFailure(err)
		if !ok || f.Class != InvalidConfig || !strings.Contains(f.Message, name) || !strings.Contains(f.Message, k) {
			t.Errorf("Render with unsupported %s = %v; want invalid_config naming %s and %s", k, err, name, k)
		}
	}
}

// materialize writes a command's files where Parse can read them, as the
// launcher does, and returns its argv.
func materialize(t *testing.T, c Command) []string {
	dir := t.TempDir()
	args := append([]string(nil), c.Argv...)
	for name, content := range c.Files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			args[i] = strings.Replace(a, "="+name, "="+p, 1)
		}
	}
	return args
}

// renderCases are golden commands beyond the seeds: each engine's
// version-dependent spellings and TRT-LLM's YAML.
var renderCases = []struct {
	name, engine, version string
	cfg                   space.Config
}{
	{"vllm-0.11-env", "vllm", "0.11.0", space.Config{KnobTP: int64(8), KnobDP: int64(1), KnobEP: int64(8), KnobMoEA2ABackend: "deepep",
		KnobDeepEPMode: "low_latency", KnobAttentionBackend: "FLASHINFER", KnobCUDAGraphMaxBS: int64(256), KnobTorchCompile: false}},
	{"vllm-latest-flags", "vllm", "", space.Config{KnobTP: int64(8), KnobDP: int64(1), KnobEP: int64(8), KnobMoEA2ABackend: "deepep",
		KnobDeepEPMode: "low_latency", KnobAttentionBackend: "flashinfer", KnobCUDAGraphMaxBS: int64(256), KnobTorchCompile: false}},
	{"vllm-eagle3", "vllm", "", space.Config{KnobSpeculativeAlgorithm: "EAGLE3", KnobSpeculativeDraftModel: "Tengyunw/qwen3_8b_eagle3",
		KnobSpeculativeNumTokens: int64(3), KnobMemFraction: 0.9, KnobMaxRunning: int64(64), KnobPrefixCaching: false, KnobChunkedPrefill: int64(-1)}},
	{"vllm-0.15-context-offload", "vllm", "0.15.1", space.Config{KnobTP: int64(2), KnobMaxModelLen: int64(131072), KnobKVOffloadGB: 64.0,
		KnobMaxRunning: int64(256)}},
	{"sglang-hicache", "sglang", "0.5.6", space.Config{KnobTP: int64(4), KnobMaxModelLen: int64(65536), KnobKVOffloadGB: 100.0}},
	{"trtllm-max-seq-len", "trtllm", "", space.Config{KnobTP: int64(2), KnobMaxModelLen: int64(32768), KnobChunkedPrefill: int64(8192)}},
	{"vllm-no-cuda-graph", "vllm", "", space.Config{KnobDisableCUDAGraph: true, KnobKVCacheDType: "fp8", KnobChunkedPrefill: int64(8192)}},
	{"sglang-everything", "sglang", "", space.Config{KnobTP: int64(8), KnobDP: int64(8), KnobEnableDPAttention: true, KnobEP: int64(8),
		KnobMemFraction: 0.85, KnobChunkedPrefill: int64(8192), KnobMoEA2ABackend: "deepep", KnobMaxRunning: int64(256),
		KnobDeepEPMode: "normal", KnobKVCacheDType: "fp8_e4m3", KnobCUDAGraphMaxBS: int64(128), KnobAttentionBackend: "fa3",
		KnobPrefixCaching: false, KnobSpeculativeAlgorithm: "MTP", KnobSpeculativeNumSteps: int64(3),
		KnobSpeculativeEagleTopK: int64(1), KnobSpeculativeNumDraftTokens: int64(4)}},
	{"trtllm-mtp-yaml", "trtllm", "", space.Config{KnobTP: int64(8), KnobEP: int64(8), KnobEnableDPAttention: true, KnobMemFraction: 0.85,
		KnobMaxRunning: int64(256), KnobKVCacheDType: "fp8_e4m3", KnobCUDAGraphMaxBS: int64(128), KnobPrefixCaching: false,
		KnobSpeculativeAlgorithm: "MTP", KnobSpeculativeNumTokens: int64(3), KnobChunkedPrefill: int64(8192)}},
	{"trtllm-eagle3-no-graph", "trtllm", "", space.Config{KnobDisableCUDAGraph: true, KnobTorchCompile: true, KnobAttentionBackend: "flashinfer",
		KnobSpeculativeAlgorithm: "EAGLE3", KnobSpeculativeDraftModel: "Tengyunw/qwen3_8b_eagle3", KnobSpeculativeNumTokens: int64(3)}},
}

func TestRenderGolden(t *testing.T) {
	for _, c := range renderCases {
		t.Run(c.name, func(t *testing.T) {
			tgt := space.Target{Model: "org/model", Engine: c.engine, Engines: map[string]space.EngineTarget{c.engine: {Version: c.version}}}
			cmd, err := Render(c.cfg, tgt)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s\n", cmd.Shell())
			for _, name := range slices.Sorted(maps.Keys(cmd.Files)) {
				fmt.Fprintf(&b, "--- %s\n%s", name, cmd.Files[name])
			}
			golden(t, filepath.Join("testdata", "golden", c.name+".txt"), b.String())
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		_ = os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs (wrote .got):\n got %s\nwant %s", path, got, want)
	}
}

func TestRenderErrors(t *testing.T) {
	tgt := space.Target{Model: "m", Engine: "vllm"}
	for _, c := range []struct {
		cfg  space.Config
		want string
	}{
		{space.Config{KnobEngine: "llamacpp"}, `unknown engine "llamacpp"`},
		{space.Config{KnobEnableDPAttention: true}, `vllm does not support knob "enable_dp_attention"`},
		{space.Config{KnobTP: int64(4), KnobEP: int64(2)}, "ep must be 1 or 4, not 2"},
		{space.Config{KnobEP: int64(2)}, "ep must be 1 (raise tp or dp to use expert parallelism), not 2"},
		{space.Config{KnobMemFraction: 1.5}, "want a fraction in (0, 1]"},
		{space.Config{KnobTP: "eight"}, "knob tp: want an integer"},
		{space.Config{KnobKVCacheDType: "int4"}, `vllm does not accept "int4"`},
		{space.Config{KnobDeepEPMode: "normal"}, "needs moe_a2a_backend=deepep"},
		{space.Config{KnobEngine: "sglang", KnobSpeculativeAlgorithm: "MEDUSA"}, `does not accept "MEDUSA"`},
		{space.Config{KnobEngine: "trtllm", KnobDP: int64(2)}, `trtllm does not support knob "dp"`},
		{space.Config{KnobEngine: "trtllm", KnobKVCacheDType: "fp8_e5m2"}, `trtllm does not accept "fp8_e5m2"`},
		{space.Config{KnobEngine: "trtllm", KnobDisableCUDAGraph: true, KnobCUDAGraphMaxBS: int64(8)}, "set while disable_cuda_graph"},
	} {
		_, err := Render(c.cfg, tgt)
		var f *Failure
		if !errors.As(err, &f) || f.Class != InvalidConfig || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Render(%s) = %v; want invalid_config containing %q", c.cfg.Summary(), err, c.want)
		}
	}
	if _, err := Render(space.Config{}, space.Target{Model: "m", Engine: "vllm", Engines: map[string]space.EngineTarget{"vllm": {Version: "banana"}}}); err == nil {
		t.Error("a bad engine version rendered")
	}
}

func TestParseRejectsUnknownFlags(t *testing.T) {
	_, err := parse("sglang", []string{"--model-path", "m", "--tp-size=2", "--frobnicate", "3"})
	if err == nil || !strings.Contains(err.Error(), "--frobnicate 3") {
		t.Fatalf("Parse with an unknown flag = %v", err)
	}
	p, err := ParseArgs("vllm", []string{"/venv/bin/vllm", "serve", "m", "--host", "127.0.0.1", "--port=8123", "--trust-remote-code", "-tp", "4"}, Latest())
	if err != nil || p.Model != "m" || p.Port != 8123 || p.Host != "127.0.0.1" || p.Config.String(KnobTP) != "4" || !reflect.DeepEqual(p.Extra, []string{"--trust-remote-code"}) {
		t.Fatalf("ParseArgs = %+v, %v", p, err)
	}
	if _, err := parse("vllm", []string{"m", "--tensor-parallel-size=x"}); err == nil {
		t.Fatal("a non-integer tp parsed")
	}
}

func TestModelPath(t *testing.T) {
	for _, c := range []struct{ model, variant, want string }{
		{"Qwen/Qwen3-8B", "FP8", "Qwen/Qwen3-8B-FP8"},
		{"Qwen/Qwen3-8B", "BF16", "Qwen/Qwen3-8B"},
		{"Qwen/Qwen3-8B", "default", "Qwen/Qwen3-8B"},
		{"zai-org/GLM-5.2-FP8", "FP8", "zai-org/GLM-5.2-FP8"},
		{"Qwen/Qwen3-8B", "RedHatAI/Qwen3-8B-FP8-dynamic", "RedHatAI/Qwen3-8B-FP8-dynamic"},
	} {
		got, err := ModelPath(space.Config{KnobModelVariant: c.variant}, space.Target{Model: c.model})
		if err != nil || got != c.want {
			t.Errorf("ModelPath(%s, %s) = %q, %v; want %q", c.model, c.variant, got, err, c.want)
		}
	}
}

func TestNamesAndSupports(t *testing.T) {
	if got := Names(); !reflect.DeepEqual(got, []string{"vllm", "sglang", "trtllm", "ollama"}) {
		t.Fatalf("Names() = %v", got)
	}
	for _, e := range []string{"vllm", "sglang", "trtllm"} {
		if !Supports(e, KnobEngine) || !Supports(e, KnobModelVariant) || !Supports(e, KnobTP) || Supports(e, "bogus") {
			t.Errorf("Supports(%s, ...) wrong for common knobs", e)
		}
	}
	if Supports("vllm", KnobSpeculativeNumSteps) || !Supports("sglang", KnobSpeculativeNumSteps) || Supports("ollama", KnobTP) {
		t.Error("Supports disagrees with the knob tables")
	}
	ks := samples("sglang").Keys()
	if !sort.StringsAreSorted(ks) || len(ks) < 15 {
		t.Errorf("sglang supports only %v", ks)
	}
}

func TestShellQuoting(t *testing.T) {
	c := Command{Argv: []string{"vllm", "serve", "m", `--speculative-config={"method":"mtp"}`, "--x=it's", "plain"},
		Env: map[string]string{"B": "two words", "A": "1"}, Program: 2}
	want := `A=1 B='two words' vllm serve m --speculative-config='{"method":"mtp"}' --x='it'\''s' plain`
	if got := c.Shell(); got != want {
		t.Errorf("Shell() = %s\nwant      %s", got, want)
	}
	if got := shellWords(c.Shell())[2:]; !reflect.DeepEqual(got, c.Argv) {
		t.Errorf("shell words of Shell() = %q; want %q", got, c.Argv)
	}
}

func with(c space.Config, f func(space.Config)) space.Config {
	out := space.Config{}
	for k, v := range c {
		out[k] = v
	}
	f(out)
	return out
}

// The context and offload knobs: each engine's spelling, the version
// gates, and the combinations the engines refuse.
func TestKVKnobs(t *testing.T) {
	cases := []struct {
		engine, version string
		cfg             space.Config
		want            string // a substring of the command, or of the error
		fails           bool
	}{
		{"vllm", "", space.Config{KnobMaxModelLen: int64(131072)}, "--max-model-len=131072", false},
		{"vllm", "", space.Config{KnobMaxModelLen: int64(-1)}, "--max-model-len=auto", false},
		{"vllm", "0.13.0", space.Config{KnobMaxModelLen: int64(-1)}, "added in 0.14.0", true},
		{"vllm", "0.15.1", space.Config{KnobKVOffloadGB: 64.0}, "--kv-offloading-size=64 --kv-offloading-backend=native", false},
		{"vllm", "0.11.1", space.Config{KnobKVOffloadGB: 2.5}, "--kv-offloading-size=2.5", false},
		{"vllm", "0.11.0", space.Config{KnobKVOffloadGB: 8.0}, "added in 0.11.1", true},
		{"vllm", "", space.Config{KnobKVOffloadGB: 0.0}, "", false},
		{"vllm", "", space.Config{KnobKVOffloadGB: -1.0}, "GiB ≥ 0", true},
		{"sglang", "", space.Config{KnobMaxModelLen: int64(65536)}, "--context-length=65536", false},
		{"sglang", "", space.Config{KnobKVOffloadGB: 100.0, KnobTP: int64(8)}, "--enable-hierarchical-cache --hicache-size=13", false},
		{"sglang", "0.5.6", space.Config{KnobKVOffloadGB: 16.0}, "--hicache-size=16", false},
		{"sglang", "", space.Config{KnobKVOffloadGB: 16.0, KnobPrefixCaching: false}, "mutually exclusive", true},
		{"trtllm", "", space.Config{KnobMaxModelLen: int64(8192)}, "--max_seq_len=8192", false},
		{"trtllm", "", space.Config{KnobMaxModelLen: int64(0)}, "positive", true},
	}
	for _, c := range cases {
		tgt := space.Target{Model: "org/model", Engine: c.engine, Engines: map[string]space.EngineTarget{c.engine: {Version: c.version}}}
		cmd, err := Render(c.cfg, tgt)
		switch {
		case c.fails && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %s %s: err %v, want one saying %q", c.engine, c.version, c.cfg.Summary(), err, c.want)
		case !c.fails && (err != nil || !strings.Contains(cmd.Shell(), c.want)):
			t.Errorf("%s %s %s: %q, %v; want %q", c.engine, c.version, c.cfg.Summary(), cmd.Shell(), err, c.want)
		case !c.fails && c.want == "" && strings.Contains(cmd.Shell(), "offload"):
			t.Errorf("0 GiB rendered an offload: %s", cmd.Shell())
		}
	}
	if Supports("trtllm", KnobKVOffloadGB) || Supports("ollama", KnobMaxModelLen) {
		t.Error("trtllm offload / ollama max_model_len are not rendered; the knobs must be refused there")
	}
}
