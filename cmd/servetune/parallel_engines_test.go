package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/studies/store"
)

// packedSpace is a study of a fake vLLM whose configs need 2, 4 or 8
// GPUs (tp), run first side by side (the enqueued 2, 4 and 2 fit an
// 8-GPU node together), each trial held for a short benchmark; the fake
// records every engine's life in record.
func packedSpace(t *testing.T, dir, record, pids string) string {
	t.Helper()
	var env []string
	o := enginetest.Options{RecordFile: record, PIDFile: pids, StartupDelay: 200 * time.Millisecond, ITL: 5 * time.Millisecond}
	for k, v := range enginetest.Env("vllm", o) {
		env = append(env, fmt.Sprintf("%s = %q", k, v))
	}
	src := fmt.Sprintf(`
[study]
name = "packed"
n_trials = 8
seed = 3

[target]
runner = "process"
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 8
engine = "vllm"

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
output_len = 40
num_prompts = 6
max_concurrency = 3
request_rate = inf

[params.tp]
values = [2, 4, 8]

[params.max_running]
values = [8, 16, 32, 64]

[[enqueue]]
tp = 2
max_running = 8

[[enqueue]]
tp = 4
max_running = 8

[[enqueue]]
tp = 2
max_running = 16

[[enqueue]]
tp = 8
max_running = 8
`, enginetest.Program(), strings.Join(env, ", "))
	path := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// run --workers 3 on a fake 8-GPU node runs real engine processes side
// by side: no two engines alive at once share a GPU or a port, each sees
// exactly the GPUs its config needs, trials do overlap, n_trials is
// exact, and no engine outlives the run.
func TestRunWithWorkersPacksRealEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and launches engine processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	record, pids := filepath.Join(dir, "lives"), filepath.Join(dir, "pids")
	cmd := exec.Command(bin, "--log-format", "json", "run", "--workers", "3", "--gpus", "0-7", "--no-prune", packedSpace(t, dir, record, pids))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	trials := readTrials(t, filepath.Join(dir, "studies", "packed", "study.db"))
	checkPackedTrials(t, trials)
	lives, err := enginetest.ReadLives(record)
	if err != nil {
		t.Fatal(err)
	}
	checkEngineLives(t, lives)
	if left := enginePGIDs(t, filepath.Join(dir, "studies", "packed")); len(left) != 0 {
		t.Errorf("engines still recorded: %v", left)
	}
	if n, live := livePIDs(pids); n == 0 || len(live) != 0 {
		t.Errorf("%d engine processes recorded, %v still running after the run", n, live)
	}
}

// checkPackedTrials: exactly n_trials complete, each on as many GPUs as
// its tp.
func checkPackedTrials(t *testing.T, trials []store.Trial) {
	t.Helper()
	if len(trials) != 8 {
		t.Errorf("%d trials, want exactly n_trials = 8", len(trials))
	}
	for _, tr := range trials {
		tp, _ := tr.Config.Int("tp")
		if tr.State != store.Complete || len(tr.Devices) != int(tp) {
			t.Errorf("trial %d: %s on GPUs %v (%+v), want complete on tp = %d GPUs", tr.Number, tr.State, tr.Devices, tr.Failure, tp)
		}
	}
}

// checkEngineLives: no two engines alive at once share a GPU or a port,
// each saw as many GPUs as its tensor-parallel size, and two served their
// trials' benchmarks at the same time (a trial's row is running while it
// waits for the runner, so the engines are the witnesses). An engine that
// never recorded its stop counts as alive to the end.
func checkEngineLives(t *testing.T, lives []enginetest.Life) {
	t.Helper()
	if len(lives) < 4 {
		t.Fatalf("%d engines recorded, want one per distinct command (at least 4)", len(lives))
	}
	end := func(l enginetest.Life) time.Time {
		if l.Stop.IsZero() {
			t.Errorf("engine %d on %v was never stopped with SIGTERM", l.PID, l.Devices)
			return time.Now()
		}
		return l.Stop
	}
	served := false
	for i, a := range lives {
		if len(a.Devices) != a.TP {
			t.Errorf("engine %d (tp=%d) saw CUDA_VISIBLE_DEVICES %v", a.PID, a.TP, a.Devices)
		}
		for _, b := range lives[:i] {
			if !(a.Start.Before(end(b)) && b.Start.Before(end(a))) {
				continue
			}
			if slices.ContainsFunc(a.Devices, func(d string) bool { return slices.Contains(b.Devices, d) }) {
				t.Errorf("engines %d on %v and %d on %v ran at the same time on a shared GPU", a.PID, a.Devices, b.PID, b.Devices)
			}
			if a.Port == b.Port {
				t.Errorf("engines %d and %d ran at the same time on port %d", a.PID, b.PID, a.Port)
			}
			served = served || a.First.Before(b.Last) && b.First.Before(a.Last)
		}
	}
	if !served {
		t.Error("no two engines served a benchmark at the same time: the trials ran one after another")
	}
}

// Real engines run side by side only on GPUs of their own: with no GPU
// list at all, run and worker refuse --workers 2 as bad input, before
// anything is written.
func TestWorkersOfRealEnginesNeedAGPUList(t *testing.T) {
	for _, name := range []string{"SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"} {
		t.Setenv(name, "")
	}
	for _, args := range [][]string{
		{"run", "--workers", "2"},
		{"worker", "--storage", "postgres://u@h/db", "--workers", "2"},
	} {
		dir := t.TempDir()
		space := faultSpace(t, dir, enginetest.Options{}, "")
		code, _, errText := runCLI(t, dir, append(args, space)...)
		if code != exitUsage || !strings.Contains(errText, "--gpus") {
			t.Errorf("%v without GPUs: exit %d %s, want a usage error naming --gpus", args, code, errText)
		}
		if _, err := os.Stat(filepath.Join(dir, "studies")); err == nil {
			t.Errorf("%v without GPUs wrote a study", args)
		}
	}
}
