package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/studies/store"
)

// fakeStudy is a process-runner study of a fake vLLM (this test binary)
// scripted by opts.
type fakeStudy struct {
	name   string
	opts   enginetest.Options
	target string // extra [target] lines
	// outputLen and prompts shape its one profile.
	outputLen, prompts int
}

func (f fakeStudy) write(t *testing.T, dir string) string {
	t.Helper()
	var env []string
	for k, v := range enginetest.Env("vllm", f.opts) {
		env = append(env, fmt.Sprintf("%s = %q", k, v))
	}
	src := fmt.Sprintf(`
[study]
name = %q
n_trials = 2

[target]
runner = "process"
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 1
engine = "vllm"
%s

[target.engines.vllm]
command = [%q]
env = { %s }

[[objectives]]
metric = "total_tps"
direction = "maximize"

[profiles]
run = ["small"]

[profiles.custom.small]
input_len = 16
output_len = %d
num_prompts = %d
max_concurrency = 3
request_rate = inf

[params.max_running]
values = [8, 16]
`, f.name, f.target, enginetest.Program(), strings.Join(env, ", "), f.outputLen, f.prompts)
	path := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// faultSpace is a small fakeStudy named "faults".
func faultSpace(t *testing.T, dir string, o enginetest.Options, target string) string {
	return fakeStudy{name: "faults", opts: o, target: target, outputLen: 8, prompts: 6}.write(t, dir)
}

// Engines that serve but never produce a usable benchmark must not stall
// the study nor "win" it: each trial fails with its class and reason, the
// study moves on, leaves no engine behind, and exits 3 since nothing
// completed.
func TestFaultyEnginesFailTheirTrialsAndTheStudyMovesOn(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		name   string
		mode   enginetest.Mode
		target string
		class  engines.Class
		reason string
	}{
		{"never answers, stalls", enginetest.Mute, `stall_timeout = "1s"`, engines.BenchFailed, "stalled"},
		{"never answers, trial limit", enginetest.Mute, "stall_timeout = \"1h\"\ntrial_timeout = \"3s\"", engines.Timeout, "time limit"},
		{"rejects every request", enginetest.Reject, "", engines.BenchFailed, "maximum context length"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			space := faultSpace(t, dir, enginetest.Options{Mode: c.mode}, c.target)
			cmd := exec.Command(bin, "--log-format", "json", "run", space)
			cmd.Dir = dir
			start := time.Now()
			out, err := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			if code != exitNoComplete {
				t.Fatalf("exit %d (%v), want %d:\n%s", code, err, exitNoComplete, out)
			}
			if took := time.Since(start); took > 2*time.Minute {
				t.Errorf("the study took %v", took)
			}
			ts := readTrials(t, filepath.Join(dir, "studies", "faults", "study.db"))
			if len(ts) != 2 {
				t.Fatalf("%d trials, want 2", len(ts))
			}
			for _, tr := range ts {
				if tr.State != store.Failed || tr.Failure == nil || tr.Failure.Class != c.class || !strings.Contains(tr.Failure.Message, c.reason) {
					t.Errorf("trial %d: %s %+v, want failed %s mentioning %q", tr.Number, tr.State, tr.Failure, c.class, c.reason)
				}
			}
			if left := enginePGIDs(t, filepath.Join(dir, "studies", "faults")); len(left) != 0 {
				t.Errorf("engines left running: %v", left)
			}
		})
	}
}
