package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/servetune/servetune/studies/export/k8stest"
	"github.com/servetune/servetune/studies/store"
)

// pdSpace is a process-runner study of disaggregated SGLang deployments
// whose prefill, decode and router processes are `servetune sim serve`
// on loopback (the servers imitating SGLang, the router SGLang's router).
func pdSpace(t *testing.T, bin, dir, speed string, outputLen int, params string) string {
	t.Helper()
	src := fmt.Sprintf(`
[study]
name = "pd"
n_trials = 2

[target]
runner = "process"
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 4
engine = "sglang"

[target.engines.sglang]
command = [%[1]q, "sim", "serve", "--engine", "sglang", "--gpu", "H100", "--gpus", "1", "--speed", %[2]q, "--startup", "300ms", "--"]
router = [%[1]q, "sim", "serve", "--engine", "sglang", "--role", "router", "--"]

[[objectives]]
metric = "total_tps"
direction = "maximize"

[profiles]
run = ["short"]

[profiles.custom.short]
input_len = 256
output_len = %[3]d
num_prompts = 16
max_concurrency = 4
request_rate = inf

[params.disaggregation]
values = ["pd"]

[params.prefill_instances]
values = [1, 2]
%[4]s
`, bin, speed, outputLen, params)
	path := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A PD study completes with measured trials: every prefill and decode
// server and the router run as their own processes with their own logs,
// the benchmark goes through the router, and nothing is left running.
func TestPDStudyMeasuresThroughTheRouter(t *testing.T) {
	if testing.Short() {
		t.Skip("launches engine processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "--no-prune", pdSpace(t, bin, dir, "20", 16, ""))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	studyDir := filepath.Join(dir, "studies", "pd")
	ts := readTrials(t, filepath.Join(studyDir, "study.db"))
	if len(ts) != 2 {
		t.Fatalf("%d trials, want 2", len(ts))
	}
	for _, tr := range ts {
		if tr.State != store.Complete || tr.Metrics["short"]["total_tps"] <= 0 {
			t.Fatalf("trial %d: %s %v %v", tr.Number, tr.State, tr.Failure, tr.Metrics)
		}
		tdir := filepath.Join(dir, filepath.Dir(tr.LogPath))
		n := 1
		if v, _ := tr.Config.Int("prefill_instances"); v == 2 {
			n = 2
		}
		for _, name := range append(prefillLogs(n), "engine.decode-0.log", "engine.log") {
			b, err := os.ReadFile(filepath.Join(tdir, name))
			if err != nil || !strings.Contains(string(b), "[servetune: ") {
				t.Fatalf("trial %d: %s: %v\n%s", tr.Number, name, err, b)
			}
		}
		router, _ := os.ReadFile(filepath.Join(tdir, "engine.log"))
		if !strings.Contains(string(router), "sglang_router") && !strings.Contains(string(router), "--pd-disaggregation") {
			t.Fatalf("trial %d: engine.log is not the router's:\n%s", tr.Number, router)
		}
	}
	if left := enginePGIDs(t, studyDir); len(left) != 0 {
		t.Fatalf("pidfiles left behind for %v", left)
	}
	// best and the command printer show the whole deployment.
	for _, args := range [][]string{{"best", "pd"}, {"command", "space.toml", "--set", "disaggregation=pd", "--set", "prefill_instances=2"}} {
		c := exec.Command(bin, args...)
		c.Dir = dir
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		for _, want := range []string{"# prefill-0 (1 GPU, port 30001)", "--disaggregation-mode=decode",
			"python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30001 8998"} {
			if !strings.Contains(string(out), want) {
				t.Fatalf("%v lacks %q:\n%s", args, want, out)
			}
		}
	}
	checkPDExports(t, bin, dir)
}

// checkPDExports: the study's best PD trial exports to Kubernetes
// (strictly decoded, a cache claim per server) and, on its one 4-GPU
// host, to a Compose file with a service per process.
func checkPDExports(t *testing.T, bin, dir string) {
	t.Helper()
	c := exec.Command(bin, "best", "pd", "--export", "k8s")
	c.Dir = dir
	y, err := c.Output()
	if err != nil {
		t.Fatalf("best --export k8s: %v", err)
	}
	objs, err := k8stest.Decode(y)
	if err != nil || len(objs.Claims) != len(objs.Deployments)-1 {
		t.Fatalf("k8s export: %v, %d claims for %d deployments\n%s", err, len(objs.Claims), len(objs.Deployments), y)
	}
	c = exec.Command(bin, "best", "pd", "--export", "docker")
	c.Dir = dir
	out, err := c.Output()
	var f struct {
		Services map[string]map[string]any `yaml:"services"`
	}
	if err != nil || yaml.Unmarshal(out, &f) != nil || len(f.Services) != len(objs.Deployments) {
		t.Fatalf("best --export docker: %v, %d services\n%s", err, len(f.Services), out)
	}
}

func prefillLogs(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("engine.prefill-%d.log", i))
	}
	return out
}

// A decode server that dies at startup (its memory fraction leaves no KV
// cache) fails the trial, named and with its own log line.
func TestPDFailingDecodeFailsTheTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("launches engine processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", pdSpace(t, bin, dir, "20", 16, "[params.decode_mem_fraction]\nvalues = [0.05]\n"))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("run: %v, want exit 3 (every trial failed)\n%s", err, out)
	}
	studyDir := filepath.Join(dir, "studies", "pd")
	ts := readTrials(t, filepath.Join(studyDir, "study.db"))
	if len(ts) == 0 {
		t.Fatal("no trials")
	}
	for _, tr := range ts {
		// Out of memory at startup: the config is infeasible, not broken.
		if tr.State != store.Infeasible || tr.Failure == nil || !strings.HasPrefix(tr.Failure.Message, "decode-0: ") {
			t.Fatalf("trial %d: %s %+v", tr.Number, tr.State, tr.Failure)
		}
		logged, _ := os.ReadFile(filepath.Join(dir, filepath.Dir(tr.LogPath), "engine.decode-0.log"))
		if len(tr.Failure.Lines) == 0 || !strings.Contains(string(logged), tr.Failure.Lines[0]) {
			t.Fatalf("trial %d: failure lines %q not from the decode server's log:\n%s", tr.Number, tr.Failure.Lines, logged)
		}
	}
	if left := enginePGIDs(t, studyDir); len(left) != 0 {
		t.Fatalf("pidfiles left behind for %v", left)
	}
}

// kill -9 of servetune while a PD trial is benchmarking takes every
// process of the deployment along within 2 s.
func TestPDKill9LeavesNothingRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("launches engine processes")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--log-format", "json", "--log-level", "debug", "run", pdSpace(t, bin, dir, "1", 512, ""))
	cmd.Dir = dir
	sc := startLogged(t, cmd)
	var pgids []int
	if untilBenchmarking(sc) {
		pgids = enginePGIDs(t, filepath.Join(dir, "studies", "pd"))
	}
	if len(pgids) < 3 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("before the kill: process groups %v, want prefill, decode and router", pgids)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	deadline := time.Now().Add(2 * time.Second)
	for {
		var live []int
		for _, pg := range pgids {
			live = append(live, liveInGroup(pg)...)
		}
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pg := range pgids {
				_ = syscall.Kill(-pg, syscall.SIGKILL)
			}
			t.Fatalf("2 s after kill -9 of servetune, deployment processes %v of groups %v are running", live, pgids)
		}
		time.Sleep(20 * time.Millisecond) // polling other processes' exit
	}
}

// roleGroup is the process group of the deployment's process whose argv
// holds marker, from the launcher's pidfiles.
func roleGroup(t *testing.T, studyDir, marker string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(studyDir, "engines", "*.json"))
	for _, f := range files {
		var rec struct {
			PGID int      `json:"pgid"`
			Argv []string `json:"argv"`
		}
		if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &rec) == nil && strings.Contains(strings.Join(rec.Argv, " "), marker) {
			return rec.PGID
		}
	}
	return 0
}

// A decode server that dies while the benchmark runs through the router
// fails the trial, named, classified as a crash during the benchmark;
// the other processes are stopped with it.
func TestPDDecodeDeathMidBenchmarkFailsTheTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("launches engine processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	space := pdSpace(t, bin, dir, "1", 512, "")
	src, _ := os.ReadFile(space)
	os.WriteFile(space, []byte(strings.Replace(string(src), "n_trials = 2", "n_trials = 1", 1)), 0o644)
	cmd := exec.Command(bin, "--log-format", "json", "--log-level", "debug", "run", space)
	cmd.Dir = dir
	sc := startLogged(t, cmd)
	studyDir := filepath.Join(dir, "studies", "pd")
	var pgids []int
	if untilBenchmarking(sc) {
		pgids = enginePGIDs(t, studyDir)
		if pg := roleGroup(t, studyDir, "--disaggregation-mode=decode"); pg > 0 {
			_ = syscall.Kill(-pg, syscall.SIGKILL)
		}
	}
	for sc.Scan() { // drain, so servetune never blocks on stderr
	}
	_ = cmd.Wait()
	ts := readTrials(t, filepath.Join(studyDir, "study.db"))
	if len(ts) != 1 || ts[0].State != store.Failed || ts[0].Failure == nil ||
		!strings.HasPrefix(ts[0].Failure.Message, "decode-0: ") || ts[0].Failure.Class != "crashed_during_benchmark" {
		t.Fatalf("trials %+v", ts)
	}
	for _, pg := range pgids {
		if live := liveInGroup(pg); len(live) > 0 {
			_ = syscall.Kill(-pg, syscall.SIGKILL)
			t.Errorf("process group %d outlived the trial: %v", pg, live)
		}
	}
}

// A deployment larger than a node spreads its servers over target.nodes
// through node_launch (here two "nodes" that are both this machine; the
// servers bind every interface, as remote nodes need), the router
// dialling each at its node, and is measured through the router.
func TestPDAcrossNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("launches engine processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	space := pdSpace(t, bin, dir, "20", 16, "[params.decode_instances]\nvalues = [2]\n")
	src, _ := os.ReadFile(space)
	spread := strings.Replace(string(src), "gpus = 4\n", "gpus = 2\nhost = \"0.0.0.0\"\ngpus_per_node = 2\nnodes = [\"127.0.0.1\", \"localhost\"]\nnode_launch = [\"env\", \"SERVETUNE_NODE={host}\"]\n", 1)
	spread = strings.Replace(spread, "values = [1, 2]", "values = [2]", 1)
	spread = strings.Replace(spread, "n_trials = 2", "n_trials = 1", 1)
	if err := os.WriteFile(space, []byte(spread), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--no-prune", space)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	ts := readTrials(t, filepath.Join(dir, "studies", "pd", "study.db"))
	if len(ts) != 1 || ts[0].State != store.Complete {
		t.Fatalf("trials %+v", ts)
	}
	tdir := filepath.Join(dir, filepath.Dir(ts[0].LogPath))
	// Two servers on each node: decode-1 runs on the second.
	b, _ := os.ReadFile(filepath.Join(tdir, "engine.decode-1.log"))
	if !strings.Contains(string(b), "env SERVETUNE_NODE=localhost") {
		t.Fatalf("decode-1 did not start through node_launch on the second node:\n%s", b)
	}
	router, _ := os.ReadFile(filepath.Join(tdir, "engine.log"))
	if !strings.Contains(string(router), "--decode http://localhost:") {
		t.Fatalf("the router does not reach decode-1 on its node:\n%s", router)
	}
}
