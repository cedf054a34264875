package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFifthPassCommandRefusals holds issue 48's fifth round on the
// command line (docs/benchmarks.md, "Issue 48: bad inputs, fifth pass"):
// each ran (exit 0), failed after connecting or reading the study (exit
// 1), or was refused naming another flag than the one at fault. Each is
// now exit 2 naming its flag or variable, before anything is written or
// any store is reached.
func TestFifthPassCommandRefusals(t *testing.T) {
	space, err := filepath.Abs("testdata/kill.toml")
	if err != nil {
		t.Fatal(err)
	}
	const pg = "postgres://u@127.0.0.1:1/x"
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"run", "--budget", "1ns", space}, want: "--budget 1ns is shorter than the 1s"},
		{args: []string{"run", "--workers", "100000000", space}, want: "--workers 100000000 is more than the 4096"},
		{args: []string{"run", space, "b.toml"}, want: `got a second argument, "b.toml"`},
		{args: []string{"worker", "--storage", pg, space, "b.toml", "c.toml"}, want: `["b.toml" "c.toml"] are extra`},
		{args: []string{"worker", "--storage", pg, "--lease", "1ns", space}, want: "--lease 1ns is shorter than 1s"},
		{args: []string{"worker", "--storage", pg, "--worker-id", "a\nb", space}, want: "--worker-id \"a\\nb\" holds a control character"},
		{args: []string{"worker", "--storage", pg, "--worker-id", strings.Repeat("w", 300), space}, want: "--worker-id is 300 bytes"},
		{args: []string{"run", "--storage", pg, "--store-outage", "1ns", space}, want: "--store-outage 1ns is shorter than 1s"},
		{args: []string{"run", "--storage", pg, space}, env: map[string]string{"SERVETUNE_STORE_CONNECT_TIMEOUT": "-5s"}, want: "$SERVETUNE_STORE_CONNECT_TIMEOUT must not be negative"},
		{args: []string{"run", "--storage", pg, space}, env: map[string]string{"SERVETUNE_STORE_OUTAGE": "1ms"}, want: "$SERVETUNE_STORE_OUTAGE 1ms is shorter"},
		{args: []string{"run", "--optuna", "sqlite:///no/such/dir/x.db", space}, want: "--optuna: optuna storage \"sqlite:///no/such/dir/x.db\": directory no/such/dir does not exist"},
		{args: []string{"export", "--optuna", "sqlite:///no/such/dir/x.db", "kill"}, want: "directory no/such/dir does not exist"},
		{args: []string{"--log-level", "", "run", space}, want: "--log-level is empty"},
		{args: []string{"card", "--max-model-len", "0", "nodir"}, want: "--max-model-len 0 plans no context"},
		{args: []string{"lab", "--landscape", ""}, want: "--landscape is empty"},
		{args: []string{"testmodel", "--out", "t.gguf", "--dim", "256", "--heads", "3"}, want: "--dim 256 must be divisible by --heads 3"},
		{args: []string{"testmodel", "--out", "t.gguf", "--kv-heads", "8"}, want: "must be divisible by --kv-heads 8"},
		{args: []string{"worker", "--storage", pg, "--lease", "1ms", "--dry-run", space}, want: "--lease 1ms is shorter than 1s"},
		{args: []string{"run", "--dir", space + "/studies", space}, want: "--dir " + space + "/studies is under " + space + ", which is not a directory"},
		{args: []string{"bench", "--seed", "abc"}, want: `--seed "abc": not a value this flag takes`},
		{args: []string{"run", "--storage", pg, space}, env: map[string]string{"SERVETUNE_STORE_OUTAGE": "-1s"}, want: "$SERVETUNE_STORE_OUTAGE must not be negative"},

		{args: []string{"show", "--sort", "", "kill"}, want: "--sort is empty"},
		{args: []string{"report", "--html", "", "kill"}, want: "--html is empty"},
		{args: []string{"best", "--export", "docker", "--trial", "0", "kill"}, want: "--trial 0: trials are numbered from 1"},
		{args: []string{"sim", "serve", "--engine", "vllm", "--gpu", "H100", "--model", "Qwen/Qwen2.5-7B-Instruct", "--port", "70000"}, want: "--port must be a TCP port"},
	}
	// bench's string flags given empty (an unset shell variable): each
	// ran the benchmark on the default and failed later, exit 1.
	for _, flag := range []string{"--endpoint", "--dataset", "--goodput", "--json", "--api-key-env"} {
		cases = append(cases, struct {
			args []string
			env  map[string]string
			want string
		}{args: []string{"bench", flag, "", "--base-url", "http://127.0.0.1:1", "--model", "m"}, want: flag + " is empty"})
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args[:3], " "), func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			dir := t.TempDir()
			code, _, stderr := runCLI(t, dir, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("%q: exit %d, want 2 and %q\n%s", c.args, code, c.want, stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%q: wrote %v", c.args, entries)
			}
		})
	}
}

// A storage that cannot list its studies fails `servetune studies`
// (exit 1) after the table's row says why; it exited 0.
func TestStudiesOfAnUnreachableStorageFails(t *testing.T) {
	code, stdout, stderr := runCLI(t, t.TempDir(), "studies", "--storage", "postgres://u@127.0.0.1:1/x")
	if code != 1 || !strings.Contains(stderr, "could not list the studies") || !strings.Contains(stdout, "127.0.0.1") {
		t.Errorf("exit %d, want 1\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
