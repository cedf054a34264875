package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/studies/store"
)

// nodesSpace is packedSpace's fake vLLM with a trial too large for one
// node: tp 16 spreads over two, each rank started through node_launch.
func nodesSpace(t *testing.T, dir, record, pids string) string {
	t.Helper()
	src, err := os.ReadFile(packedSpace(t, dir, record, pids))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "n_trials = 8", "n_trials = 2", 1)
	s = strings.Replace(s, `engine = "vllm"`, "engine = \"vllm\"\ngpus_per_node = 8\nnode_launch = [\"env\", \"SERVETUNE_TEST_NODE={host}\"]", 1)
	s = strings.Replace(s, "values = [2, 4, 8]", "values = [8, 16]", 1)
	s, _, _ = strings.Cut(s, "[[enqueue]]")
	s += "[[enqueue]]\ntp = 16\nmax_running = 8\n\n[[enqueue]]\ntp = 8\nmax_running = 8\n"
	path := filepath.Join(dir, "nodes.toml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --nodes gives a space whose node_launch has no target.nodes its hosts
// (a scheduler's node list), and the trial that needs two nodes runs a
// rank on each, charged for all their GPUs, none left running; without
// the hosts the space is refused.
func TestRunSpreadsATrialOverTheNodesGiven(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and launches engine processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	record, pids := filepath.Join(dir, "lives"), filepath.Join(dir, "pids")
	space := nodesSpace(t, dir, record, pids)
	refused := exec.Command(bin, "run", space)
	refused.Dir = dir
	out, _ := refused.CombinedOutput()
	if code := refused.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "target.node_launch") {
		t.Fatalf("without --nodes: exit %d, want 2 naming target.node_launch\n%s", code, out)
	}
	cmd := exec.Command(bin, "--log-format", "json", "run", "--no-prune", "--nodes", "127.0.0.1,127.0.0.1", space)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run --nodes: %v\n%s", err, out)
	}
	trials := readTrials(t, filepath.Join(dir, "studies", "packed", "study.db"))
	spread := false
	for _, tr := range trials {
		tp, _ := tr.Config.Int("tp")
		if tr.State != store.Complete {
			t.Errorf("trial %d (tp %d): %s %+v", tr.Number, tp, tr.State, tr.Failure)
			continue
		}
		if tp == 16 {
			spread = true
			if _, err := os.Stat(filepath.Join(dir, filepath.Dir(tr.LogPath), "engine.rank-1.log")); err != nil {
				t.Errorf("the two-node trial has no rank-1 log: %v", err)
			}
			if hours := tr.GPUSeconds / tr.End.Sub(tr.Start).Seconds(); hours < 15 {
				t.Errorf("the two-node trial was charged for %.1f GPUs, want 16", hours)
			}
		}
	}
	if !spread {
		t.Error("the tp = 16 trial did not run")
	}
	if n, live := livePIDs(pids); n == 0 || len(live) != 0 {
		t.Errorf("%d engine processes recorded, %v still running after the run", n, live)
	}
}
