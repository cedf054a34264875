package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/servetune/servetune/studies/store"
)

// TestOllamaQualityGuard runs the quality guard on real Ollama on CPU:
// every trial decodes four fixed prompts greedily, the baseline's replies
// are stored with it, and baseline_agreement tells a config that changes
// the replies (num_ctx = 16 truncates the prompts) from one that does not
// (a q4_0 KV cache, which Ollama on CPU ignores), so the guard
// `baseline_agreement >= 0.9` keeps only the latter.
func TestOllamaQualityGuard(t *testing.T) {
	bin, dir, env := ollamaStudyDir(t)
	for _, f := range []string{"ollama-quality.toml", "quality-prompts.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin, "run", "--no-prune", "ollama-quality.toml")
	run.Dir, run.Env = dir, env
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	trials := readTrials(t, filepath.Join(dir, "studies", "ollama-quality", "study.db"))
	if len(trials) != 4 {
		t.Fatalf("%d trials, want the 4 of the grid", len(trials))
	}
	for _, tr := range trials {
		checkQualityTrial(t, dir, tr)
	}
	if best := bestOf(t, dir); best == 0 || trials[best-1].Config.String("num_ctx") != "2048" {
		t.Errorf("best trial %d: want one that keeps the baseline's replies (num_ctx 2048)", best)
	}
}

// checkQualityTrial checks one trial's quality metrics against what its
// config does to Ollama's replies.
func checkQualityTrial(t *testing.T, dir string, tr store.Trial) {
	t.Helper()
	m := tr.Metrics["qa"]
	agree, acc := m["baseline_agreement"], m["answer_accuracy"]
	t.Logf("trial %d %-60s agreement %.2f accuracy %.2f replies %q", tr.Number, tr.Config.Summary(), agree, acc, tr.Replies["qa"])
	if tr.State != store.Complete || m["completed"] != 4 {
		t.Fatalf("trial %d: %s, %v completed", tr.Number, tr.State, m["completed"])
	}
	// One reference is a regex any reply matches, one an exact answer
	// the random model never gives.
	if acc != 0.5 {
		t.Errorf("trial %d: answer_accuracy %v, want 0.5", tr.Number, acc)
	}
	switch {
	case tr.Origin == "baseline":
		if agree != 1 || len(tr.Replies["qa"]) != 4 || tr.Replies["qa"][0] == "" {
			t.Errorf("baseline: agreement %v, replies %q: want 1 and its 4 replies stored", agree, tr.Replies["qa"])
		}
	case tr.Config.String("num_ctx") == "16":
		if agree > 0.5 {
			t.Errorf("trial %d: num_ctx 16 truncates every prompt, yet agreement is %v", tr.Number, agree)
		}
	default:
		log, _ := os.ReadFile(filepath.Join(dir, tr.LogPath))
		if bytes.Contains(log, []byte("quantized kv cache requested but flash attention disabled")) && agree != 1 {
			t.Errorf("trial %d: Ollama ran f16 (it says so), yet agreement is %v", tr.Number, agree)
		}
	}
}

// bestOf is the best trial of the study, as `servetune best` reports it.
func bestOf(t *testing.T, dir string) int {
	t.Helper()
	r := bestJSON(t, dir, "ollama-quality")
	if len(r.Winners) != 1 {
		return 0
	}
	return r.Winners[0].Trial
}
