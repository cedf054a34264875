package main

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/bench/benchtest"
)

// servetune bench replays a trace: its requests, capped by --num-prompts,
// at its times compressed by --speedup; a trace flag without the trace
// dataset, or a random-dataset flag with it, is a usage error (exit 2).
func TestBenchTraceReplay(t *testing.T) {
	srv := benchtest.NewServer(benchtest.Config{Flavor: benchtest.VLLM})
	defer srv.Close()
	code, out, errText := benchCLI("--base-url", srv.URL, "--model", "m", "--dataset", "trace",
		"--dataset-path", "../../examples/traces/generic.jsonl", "--speedup", "100", "--num-prompts", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	if !strings.Contains(out, "Successful requests:                     10\n") {
		t.Errorf("output:\n%s", out)
	}
	if n := len(srv.Requests()); n != 10 {
		t.Errorf("server saw %d requests, want 10", n)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset", "random", "--speedup", "2"}, "--speedup needs --dataset trace"},
		{[]string{"--dataset", "trace", "--dataset-path", "x.jsonl", "--input-len", "5"}, "--input-len does not apply to --dataset trace"},
		{[]string{"--dataset", "trace", "--dataset-path", "x.jsonl", "--sample", "2"}, "--sample must be in (0, 1]"},
	} {
		code, _, errText := benchCLI(append([]string{"--base-url", srv.URL, "--model", "m"}, c.args...)...)
		if code != 2 || !strings.Contains(errText, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errText, c.want)
		}
	}
}
