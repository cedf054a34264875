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
