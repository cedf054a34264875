package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const checkRun = `{"runs": [{"id": "a", "engine": "vllm", "model": "Qwen/Qwen2.5-7B-Instruct", "gpu": "H100", "tp": 1, "dp": 1,
 "precision": "FP16", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "gpu_memory_utilization": null,
 "cpu_kv_offload": null, "max_model_len": 4096, "prefix_caching": true, "chunked_prefill": true,
 "workload": {"system_prompt_len": 100, "question_len": 400, "output_len": 100, "num_unique_system_prompts": 4,
  "num_users_per_system_prompt": 4, "stages": [{"rate": 2, "duration_s": 20}],
  "data_type": "shared_prefix", "enable_multi_turn_chat": true, "ignore_eos": true, "max_model_len": 4096},
 "measured_ms": {"summary": {"e2e_mean": 800, "ttft_mean": 30, "itl_mean": 7.5}, "stage_0": {"e2e_mean": 800, "ttft_mean": 30, "itl_mean": 7.5}}}]}`

func TestSimCheckReportsMAPE(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	if err := os.WriteFile(path, []byte(checkRun), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, dir, "sim", "check", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		StageMAPE map[string]float64 `json:"stage_mape_pct"`
		Stages    int                `json:"stages"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Stages != 1 || rep.StageMAPE["e2e_mean"] <= 0 {
		t.Errorf("report %+v", rep)
	}
	code, out, _ = runCLI(t, dir, "sim", "check", path)
	if code != 0 || !strings.Contains(out, "MAPE (fitted) over 1 stages") || !strings.Contains(out, "interval coverage over stage rows") {
		t.Errorf("text report: exit %d\n%s", code, out)
	}
}

func TestSimCheckRefusesABadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	if err := os.WriteFile(path, []byte(strings.Replace(checkRun, `"tp": 1,`, `"tp": 1, "tpp": 2,`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, dir, "sim", "check", path)
	if code != 2 || !regexp.MustCompile(`m\.json:\d+: tpp: unknown key; did you mean "tp"\?`).MatchString(errOut) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := runCLI(t, dir, "sim", "fit", "--history", "always", path); code != 2 {
		t.Errorf("--history always: exit %d", code)
	}
}

// A --cards file whose card answers to the run's model by alias replaces
// the built-in card, and the command says so; the JSON report always has
// its groups section and the intervals' coverage.
func TestSimCheckCardsAliasOverrideIsReported(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	if err := os.WriteFile(path, []byte(checkRun), 0o644); err != nil {
		t.Fatal(err)
	}
	cards := filepath.Join(dir, "cards.toml")
	src := `[[model]]
name = "my-qwen"
aliases = ["Qwen/Qwen2.5-7B-Instruct"]
total_params_b = 7.61
active_params_b = 7.61
attn_params_b = 0.82
layers = 28
hidden = 3584
vocab = 152064
heads = 28
kv_heads = 4
head_dim = 128
max_context = 32768
`
	if err := os.WriteFile(cards, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, dir, "sim", "check", "--json", "--cards", cards, path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, `model card \"my-qwen\" replaces the card \"Qwen2.5-7B\"`) && !strings.Contains(errOut, `model card "my-qwen" replaces the card "Qwen2.5-7B"`) {
		t.Errorf("no notice of the replaced card on stderr: %s", errOut)
	}
	var rep map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"groups", "interval_coverage"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("JSON report lacks %q", k)
		}
	}
	// Each stage row carries its intervals around the simulated value.
	var runs []struct {
		Stages []struct {
			Sim      map[string]float64 `json:"sim_ms"`
			Interval map[string]struct {
				Lo80, Hi80, Lo95, Hi95 float64
			} `json:"interval_ms"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(rep["runs"], &runs); err != nil {
		t.Fatal(err)
	}
	iv, ok := runs[0].Stages[0].Interval["e2e_mean"]
	if sim := runs[0].Stages[0].Sim["e2e_mean"]; !ok || !(iv.Lo95 < iv.Lo80 && iv.Lo80 < sim && sim < iv.Hi95 && iv.Hi80 < iv.Hi95) {
		t.Errorf("e2e_mean %v: interval %+v (present %v)", sim, iv, ok)
	}
}
