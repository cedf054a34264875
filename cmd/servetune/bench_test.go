package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench/benchtest"
)

func benchCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"servetune", "bench"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestBenchCommand(t *testing.T) {
	srv := benchtest.NewServer(benchtest.Config{Flavor: benchtest.SGLang})
	defer srv.Close()
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "out.json")
	code, out, errText := benchCLI("--base-url", srv.URL, "--model", "Qwen/Qwen3-8B", "--profile", "sharegpt-bs-2",
		"--num-prompts", "6", "--json", jsonPath, "--format", "vllm", "--percentiles", "50,99")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	for _, want := range []string{"Successful requests:                     6\n", "Maximum request concurrency:             2\n",
		"P50 TTFT (ms):", "P99 ITL (ms):"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if len(srv.Requests()) != 6 || !strings.Contains(string(srv.Requests()[0]), `"messages"`) {
		t.Errorf("server saw %d requests; sharegpt-bs profiles use chat", len(srv.Requests()))
	}
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Metrics       struct {
			Completed   int `json:"completed"`
			TotalOutput int `json:"total_output_tokens"`
		} `json:"metrics"`
		Values      map[string]float64 `json:"values"`
		RecordsFile string             `json:"records_file"`
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 || doc.Metrics.Completed != 6 || doc.Values["total_tps"] <= 0 || doc.RecordsFile != filepath.Join(dir, "out.records.jsonl") {
		t.Errorf("json %s", b)
	}
	// The records alone reproduce the block.
	code, again, errText := benchCLI("--from-records", doc.RecordsFile, "--format", "vllm", "--percentiles", "50,99")
	if code != 0 || again != out {
		t.Errorf("recomputed (exit %d, %s):\n%s\nwant:\n%s", code, errText, again, out)
	}
}

func TestBenchBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	cases := [][]string{
		{"--model", "m"},
		{"--base-url", "localhost:8000", "--model", "m"},
		{"--base-url", "http://x", "--model", "m", "--profile", "nope"},
		{"--base-url", "http://x", "--model", "m", "--request-rate", "fast"},
		{"--base-url", "http://x", "--model", "m", "--dataset", "sharegpt", "--dataset-path", filepath.Join(dir, "missing.json")},
		{"--base-url", "http://x", "--model", "m", "--goodput", "latency:5"},
		{"--base-url", "http://x", "--model", "m", "--percentiles", "100"},
		{"--base-url", "http://x", "--model", "m", "--range-ratio", "1.5"},
		{"--base-url", "http://x", "--model", "m", "--header", "novalue"},
		{"--from-records", filepath.Join(dir, "missing.jsonl")},
		// Issue 48's fresh round: each was sent to the server (exit 1).
		{"--base-url", "http://x", "--model", "m", "--header", "X: a\r\nEvil: b"},
		{"--base-url", "http://x", "--model", "m", "--header", "X-Team: a", "--header", "x-team: b"},
		{"--base-url", "http://x", "--model", "m", "--goodput", "ttft:5,ttft:6"},
		{"--base-url", "http://x", "--model", "m", "--api-key-env", "SERVETUNE_TEST_NO_SUCH_KEY_48"},
		{"--base-url", "http://x", "--model", "m", "--json", dir},
		{"--base-url", "", "--model", "m"},
	}
	for _, args := range cases {
		code, out, errText := benchCLI(args...)
		if code != 2 || out != "" || !strings.Contains(errText, "servetune:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, a message", args, code, out, errText)
		}
	}
}

func TestBenchAllFailedExitsOne(t *testing.T) {
	srv := benchtest.NewServer(benchtest.Config{Fault: benchtest.Fault{Status: 500}})
	defer srv.Close()
	code, out, errText := benchCLI("--base-url", srv.URL, "--model", "m", "--num-prompts", "3", "--input-len", "8", "--output-len", "4")
	want := "no request succeeded: 3 of 3 requests failed, 3 of them http: HTTP 500: injected failure"
	if code != 1 || !strings.Contains(out, "Failed requests:                         3") || !strings.Contains(errText, want) {
		t.Errorf("exit %d\n%s\n%s\nwant %q", code, out, errText, want)
	}
}

// --stall-timeout reaches the load generator: a server that never answers
// fails each request as stalled instead of hanging the command.
func TestBenchStallTimeout(t *testing.T) {
	srv := benchtest.NewServer(benchtest.Config{Fault: benchtest.Fault{HangBeforeHeaders: true}})
	defer srv.Close()
	code, _, errText := benchCLI("--base-url", srv.URL, "--model", "m", "--num-prompts", "2", "--input-len", "8",
		"--output-len", "4", "--stall-timeout", "20ms")
	want := "2 of them timeout: request stalled: no byte received for 20ms"
	if code != 1 || !strings.Contains(errText, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errText, want)
	}
}
