package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench/benchtest"
)

// servetune bench runs inference-perf's shared_prefix workload in
// stages: the server sees G×U users' prompts, multi-turn rounds growing,
// and the result has each stage's metrics besides the overall ones.
func TestBenchSharedPrefixStages(t *testing.T) {
	srv := benchtest.NewServer(benchtest.Config{Flavor: benchtest.VLLM})
	defer srv.Close()
	jsonPath := filepath.Join(t.TempDir(), "sp.json")
	code, out, errText := benchCLI("--base-url", srv.URL, "--model", "m", "--dataset", "shared_prefix",
		"--num-unique-system-prompts", "2", "--num-users-per-system-prompt", "2", "--system-prompt-len", "50",
		"--question-len", "20", "--output-len", "4", "--enable-multi-turn-chat", "--stages", "200:40ms,400:20ms",
		"--percentiles", "90", "--json", jsonPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	for _, want := range []string{"Successful requests:                     16\n", "- Stage 0 -", "- Stage 1 -", "P90 E2EL (ms):"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var doc struct {
		Profile struct {
			SharedPrefix struct {
				MultiTurn bool `json:"enable_multi_turn_chat"`
			} `json:"shared_prefix"`
		} `json:"profile"`
		Metrics struct {
			Stages []struct {
				Completed int `json:"completed"`
			} `json:"stages"`
		} `json:"metrics"`
		Values map[string]float64 `json:"values"`
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Profile.SharedPrefix.MultiTurn || len(doc.Metrics.Stages) != 2 || doc.Metrics.Stages[0].Completed != 8 ||
		doc.Metrics.Stages[1].Completed != 8 || doc.Values["stage1_p90_ttft_ms"] <= 0 {
		t.Errorf("json: multi-turn %v, stages %+v, stage1_p90_ttft_ms %v", doc.Profile.SharedPrefix.MultiTurn, doc.Metrics.Stages, doc.Values["stage1_p90_ttft_ms"])
	}
	// Round 1 of a user resends round 0's prompt and reply: 50 + 20 + 4 + 20.
	lens := map[int]bool{}
	for _, body := range srv.Requests() {
		var req struct {
			Prompt []int `json:"prompt"`
		}
		_ = json.Unmarshal(body, &req)
		lens[len(req.Prompt)] = true
	}
	if !lens[70] || !lens[94] {
		t.Errorf("prompt lengths %v, want 70 (round 0) and 94 (round 1)", lens)
	}
}

func TestBenchSharedPrefixBadFlags(t *testing.T) {
	sp := []string{"--base-url", "http://x", "--model", "m", "--dataset", "shared_prefix"}
	full := append(append([]string{}, sp...), "--num-unique-system-prompts", "1", "--num-users-per-system-prompt", "1", "--question-len", "5")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{sp, "--num-unique-system-prompts must be > 0, not 0; --num-users-per-system-prompt must be > 0"},
		{append(full, "--input-len", "5"), "--input-len does not apply to --dataset shared_prefix"},
		{append(full, "--overflow", "wrap"), `--overflow must be restart or truncate, not "wrap"`},
		{append(full, "--max-model-len", "10"), "--max-model-len 10 cannot hold one round"},
		{[]string{"--base-url", "http://x", "--model", "m", "--question-len", "5"}, "--question-len needs --dataset shared_prefix"},
		{append(full, "--stages", "2:10s,3"), `--stages: stage 2 "3": want RATE:DURATION`},
		{append(full, "--stages", "2:10s", "--request-rate", "4"), "--request-rate and --stages exclude each other"},
	} {
		code, out, errText := benchCLI(c.args...)
		if code != 2 || out != "" || !strings.Contains(errText, c.msg) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errText, c.msg)
		}
	}
}
