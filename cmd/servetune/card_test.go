package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// A card built from a model directory's config.json feeds the simulator.
func TestCardFromModelDirectoryFeedsTheSimulator(t *testing.T) {
	cfg, err := filepath.Abs("../../engines/sim/testdata/hf/qwen3-30b-a3b.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	modelDir := filepath.Join(dir, "Qwen3-30B-A3B")
	if err := os.Mkdir(modelDir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(modelDir, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI(t, dir, "card", modelDir, "--alias", "Qwen/Qwen3-30B-A3B")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	cards := sim.DefaultCards()
	if err := cards.Add(strings.NewReader(out)); err != nil {
		t.Fatalf("card output does not load: %v\n%s", err, out)
	}
	sm := &sim.Simulator{Cards: cards}
	p := bench.Profile{Name: "p", Dataset: "random", InputLen: 512, OutputLen: 64, NumPrompts: 16, MaxConcurrency: 8, Seed: 1}
	tgt := space.Target{Model: "Qwen/Qwen3-30B-A3B", GPU: "H100", GPUs: 1}
	recs, _, err := sm.Evaluate(context.Background(), space.Config{"engine": "vllm"}, tgt, p, 1)
	if err != nil || len(recs) != 16 {
		t.Fatalf("Evaluate on the new card: %v (%d records)", err, len(recs))
	}
}

func TestCardNamesTheBadFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "config.json")
	if err := os.WriteFile(bad, []byte(`{"_name_or_path": "m"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runCLI(t, dir, "card", bad)
	if code == 0 || !strings.Contains(errText, bad) || !strings.Contains(errText, "hidden_size") {
		t.Fatalf("exit %d, stderr %q: want the file and the missing key", code, errText)
	}
}

// A path that names no config.json is bad input, exit 2, naming it (it
// was exit 1, as if servetune had failed).
func TestCardWithoutAConfigIsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, arg := range []string{filepath.Join(dir, "nope"), dir} {
		code, _, errText := runCLI(t, dir, "card", arg)
		if code != 2 || !strings.Contains(errText, arg) {
			t.Errorf("card %s: exit %d, stderr %q; want 2 naming it", arg, code, errText)
		}
	}
}

// Llama-4 Scout FP8: FP8 weights, the shared expert counted (17B
// active), and --max-model-len sets the planned context.
func TestCardQuantisedMoEAndMaxModelLen(t *testing.T) {
	cfg, err := filepath.Abs("../../engines/sim/testdata/hf/llama-4-scout-17b-16e-instruct-fp8-dynamic.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errText := runCLI(t, dir, "card", cfg, "--name", "scout")
	if code != 0 || !strings.Contains(errText, "10485760-token context") || !strings.Contains(errText, "plans KV for 32768 tokens") ||
		!strings.Contains(out, "max_context = 10485760") || !strings.Contains(out, "max_model_len = 32768") {
		t.Fatalf("no --max-model-len: exit %d\n%s\n%s", code, out, errText)
	}
	code, out, errText = runCLI(t, dir, "card", cfg, "--name", "scout", "--max-model-len", "131072")
	if code != 0 || errText != "" {
		t.Fatalf("exit %d: %s", code, errText)
	}
	for _, want := range []string{`weight_dtype = "fp8"`, "max_context = 10485760", "max_model_len = 131072", "kv_layers = 12", "window_layers = 36", "sliding_window = 8192"} {
		if !strings.Contains(out, want) {
			t.Errorf("card lacks %q:\n%s", want, out)
		}
	}
	cards := sim.DefaultCards()
	if err := cards.Add(strings.NewReader(out)); err != nil {
		t.Fatal(err)
	}
	m, _ := cards.Model("scout")
	if m.ActiveParamsB < 16.5 || m.ActiveParamsB > 17.5 {
		t.Errorf("active %.2fB, published 17B", m.ActiveParamsB)
	}
	// The planned context fits one H100 pair; the 10M one would not.
	sm := &sim.Simulator{Cards: cards}
	p := bench.Profile{Name: "p", Dataset: "random", InputLen: 512, OutputLen: 32, NumPrompts: 8, MaxConcurrency: 4, Seed: 1}
	if _, _, err := sm.Evaluate(context.Background(), space.Config{"engine": "vllm", "tp": int64(2)}, space.Target{Model: "scout", GPU: "H100", GPUs: 2}, p, 1); err != nil {
		t.Errorf("Scout FP8 at 128k on 2×H100: %v", err)
	}
	// The card's max_model_len is what the server runs with, not the
	// model's limit: a max_model_len knob may still ask for more.
	long := space.Config{"engine": "vllm", "tp": int64(2), "max_model_len": int64(262144)}
	if _, _, err := sm.Evaluate(context.Background(), long, space.Target{Model: "scout", GPU: "H100", GPUs: 2}, p, 1); err != nil {
		t.Errorf("max_model_len 262144 over a card planned for 131072 (the model takes 10M): %v", err)
	}
	code, _, errText = runCLI(t, dir, "card", cfg, "--max-model-len", "20000000")
	if code != 2 || !strings.Contains(errText, "max_position_embeddings") {
		t.Errorf("too long: exit %d %s", code, errText)
	}
}
