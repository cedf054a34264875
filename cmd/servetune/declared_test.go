package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/studies/store"
)

// goSimFiles writes a space tuning the GoSim fake through a declaration
// only — an engines file it includes — and returns the space's path. host
// is how the declaration passes the host; versionFile is what the fake's
// --version prints.
func goSimFiles(t *testing.T, dir, host, versionFile string) string {
	t.Helper()
	var env []string
	for k, v := range enginetest.Env(enginetest.GoSim, enginetest.Options{VersionFile: versionFile}) {
		env = append(env, k+" = "+strconv.Quote(v))
	}
	decl := fmt.Sprintf(`
[engines.gosim]
command = [%q]
version_command = [%q, "--version"]
model = "--model"
served_name = "--served-model-name"
host = %q
port = "--port"
env = { %s }

[engines.gosim.knobs]
max_running = { flag = "--max-num-seqs" }
prefix_caching = { flag = "--enable-prefix-caching" }

[engines.gosim.ready]
path = "/health/ready"
field = "status"
value = "ready"
`, enginetest.Program(), enginetest.Program(), host, strings.Join(env, ", "))
	space := `include = "engines.toml"

[study]
name = "declared"
sampler = "grid"
n_trials = 4

[target]
runner = "process"
model = "/models/tiny"
engine = "gosim"
startup_timeout = "1m"

[[objectives]]
metric = "total_tps"
direction = "maximize"

[profiles]
run = ["small"]

[profiles.custom.small]
input_len = 16
output_len = 8
num_prompts = 6
max_concurrency = 3
request_rate = inf

[params.max_running]
values = [4, 8]

[params.prefix_caching]
values = [false, true]
`
	for name, src := range map[string]string{"engines.toml": decl, "space.toml": space} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "space.toml")
}

// The engine, tuned end to end through the binary from a
// declaration only: no host flag, the model as --model, cobra's flag
// error with exit status 0, readiness on /health/ready that says
// "loading" first. Configs the engine refuses are classified
// invalid_config with its own line; the others are measured.
func TestDeclaredEngineIsTunedEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	version := filepath.Join(dir, "version")
	os.WriteFile(version, []byte("0.3.1"), 0o644)
	cmd := exec.Command(bin, "--log-format", "json", "run", "--no-prune", goSimFiles(t, dir, "none", version))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	ts := readTrials(t, filepath.Join(dir, "studies", "declared", "study.db"))
	complete, refused := 0, 0
	for _, tr := range ts {
		caching, _ := tr.Config.Bool("prefix_caching")
		switch {
		case !caching && tr.State == store.Complete:
			complete++
		case caching && tr.State == store.Infeasible && tr.Failure != nil && tr.Failure.Class == engines.InvalidConfig &&
			strings.Contains(tr.Failure.Message, "unknown flag: --enable-prefix-caching"):
			refused++
		default:
			t.Errorf("trial %d %v: %s %+v", tr.Number, tr.Config, tr.State, tr.Failure)
		}
	}
	if complete != 2 || refused != 2 {
		t.Errorf("%d complete, %d refused; want 2 and 2:\n%s", complete, refused, out)
	}
	if left := enginePGIDs(t, filepath.Join(dir, "studies", "declared")); len(left) != 0 {
		t.Errorf("engines left running: %v", left)
	}
	// best reads the study from its record, engines file or not, and shows
	// the canonical command and the one that ran.
	os.Remove(filepath.Join(dir, "engines.toml"))
	best := exec.Command(bin, "best", "declared")
	best.Dir = dir
	out, err = best.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--model /models/tiny --max-num-seqs") || !strings.Contains(string(out), "ran as:") ||
		!strings.Contains(string(out), "gosim 0.3.1") {
		t.Errorf("best: %v\n%s", err, out)
	}
}

// A declaration that passes --host to an engine without one: every trial
// fails the same way, the summary says which, and the study exits 3.
func TestStudyWhoseTrialsAllFailTheSameWayNamesTheClass(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--log-format", "json", "run", goSimFiles(t, dir, "--host", filepath.Join(dir, "version")))
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exitNoComplete {
		t.Fatalf("exit %d, want %d:\n%s", code, exitNoComplete, out)
	}
	for _, want := range []string{"Every trial failed as invalid_config", "every trial failed as invalid_config", "unknown flag: --host"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Trials record the engine's own version and the command that really ran;
// resuming after the engine was upgraded is refused under on_drift =
// "refuse" (the default) and runs, warned, under "warn".
func TestResumeWithAnUpgradedEngineIsRefused(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	version := filepath.Join(dir, "version")
	os.WriteFile(version, []byte("0.3.1"), 0o644)
	space := goSimFiles(t, dir, "none", version)
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, append([]string{"--log-format", "json", "run", "--no-prune"}, args...)...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run("--n-trials", "1", space); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, out)
	}
	db := filepath.Join(dir, "studies", "declared", "study.db")
	ts := readTrials(t, db)
	if len(ts) != 1 || ts[0].Fingerprint == nil || ts[0].Fingerprint.EngineVersion != "0.3.1" || ts[0].Fingerprint.Device == "" {
		t.Fatalf("trial fingerprint %+v", ts[0].Fingerprint)
	}
	if ts[0].Ran == nil || !strings.Contains(ts[0].Ran.Shell(), "--model /models/tiny --max-num-seqs ") {
		t.Errorf("recorded command %+v", ts[0].Ran)
	}

	os.WriteFile(version, []byte("0.4.0"), 0o644)
	code, out := run("--n-trials", "2", space)
	if code != 1 || !strings.Contains(out, "engine_version 0.3.1 → 0.4.0") || !strings.Contains(out, `on_drift = "warn"`) {
		t.Errorf("upgraded engine: exit %d, want 1 naming the drift:\n%s", code, out)
	}
	if n := len(readTrials(t, db)); n != 1 {
		t.Errorf("a refused run added trials: %d", n)
	}

	src, _ := os.ReadFile(space)
	os.WriteFile(space, []byte(strings.Replace(string(src), "n_trials = 4", "n_trials = 4\non_drift = \"warn\"", 1)), 0o644)
	code, out = run("--n-trials", "2", space)
	if code != 0 || !strings.Contains(out, "environment drift") {
		t.Errorf("on_drift = warn: exit %d, want 0 with a warning:\n%s", code, out)
	}
	ts = readTrials(t, db)
	if len(ts) != 2 || ts[1].Fingerprint == nil || ts[1].Fingerprint.EngineVersion != "0.4.0" {
		t.Errorf("the warned trial's fingerprint: %+v", ts[len(ts)-1].Fingerprint)
	}
}

// `servetune command --engines FILE` renders a declared engine's canonical
// command; without the file the engine is unknown (exit 2).
func TestCommandRendersADeclaredEngineFromEnginesFlag(t *testing.T) {
	dir := t.TempDir()
	abs, _ := filepath.Abs("../../examples/engines/llama-server.toml")
	space := filepath.Join(dir, "space.toml")
	os.WriteFile(space, []byte(`[study]
name = "llama"
[target]
runner = "process"
model = "/models/tiny.gguf"
engine = "llama-server"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[params.max_running]
values = [2, 4]
`), 0o644)
	code, out, errText := runCLI(t, dir, "command", space, "--engines", abs, "--set", "max_running=4", "--set", "flash_attn=on")
	if code != 0 || out != "llama-server --model /models/tiny.gguf --flash-attn on --parallel 4\n" {
		t.Errorf("exit %d, stdout %q, stderr %s", code, out, errText)
	}
	if code, _, errText := runCLI(t, dir, "command", space); code != 2 || !strings.Contains(errText, `unknown engine "llama-server"`) {
		t.Errorf("without --engines: exit %d: %s", code, errText)
	}
}
