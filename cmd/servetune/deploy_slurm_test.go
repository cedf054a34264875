package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/examples/deploy/slurmtest"
	"github.com/servetune/servetune/studies/pgtest"
)

// sbatchTimeout bounds the whole job: ten simulated trials take a second
// or two, SLURM's start and polling a few more.
const sbatchTimeout = 90 * time.Second

// slurmTrials is testdata/slurm.toml's n_trials.
const slurmTrials = 10

// The SLURM recipe end to end on a real cluster of two nodes (two slurmd
// on this host): sbatch runs examples/deploy/slurm/servetune.sbatch as it
// is, srun starts a worker on each node, each joins the study in
// PostgreSQL with the GPUs SLURM gave its node, and the study ends with
// exactly n_trials, each on its node's GPUs under the worker id the
// script derives from the job and node.
func TestDeploySlurmRecipeRunsAStudyEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, starts SLURM and PostgreSQL")
	}
	cluster := slurmtest.Start(t, 2)
	url := pgtest.Start(t)
	bin := buildBinary(t)
	space, _ := filepath.Abs("testdata/slurm.toml")
	job, output := sbatchRecipe(t, cluster, bin, url, space)
	if n := strings.Count(output, "worker joined the study"); n != len(cluster.Nodes) {
		t.Errorf("%d workers joined the study, want one per node (%d):\n%s", n, len(cluster.Nodes), output)
	}
	code, out, errText := runCLI(t, t.TempDir(), "show", "--json", "--storage", url, "slurm")
	if code != 0 {
		t.Fatalf("show --storage: exit %d\n%s", code, errText)
	}
	var trials []slurmTrial
	if err := json.Unmarshal([]byte(out), &trials); err != nil {
		t.Fatal(err)
	}
	checkSlurmTrials(t, trials, slurmTrials, job, cluster.Nodes)
}

// slurmTrial is what the test reads of `show --json`.
type slurmTrial struct {
	Number  int             `json:"number"`
	State   string          `json:"state"`
	Failure json.RawMessage `json:"failure"`
	Worker  string          `json:"worker"`
	Devices []string        `json:"devices"`
}

// sbatchRecipe submits the recipe with the storage URL exported and the
// built servetune first on PATH, waits for the job and returns its id and
// output.
func sbatchRecipe(t *testing.T, c *slurmtest.Cluster, bin, url, space string) (job, output string) {
	t.Helper()
	work := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), sbatchTimeout)
	defer cancel()
	recipe, _ := filepath.Abs("../../examples/deploy/slurm/servetune.sbatch")
	cmd := exec.CommandContext(ctx, "sbatch", "--wait", "--parsable", "--chdir", work, recipe, space)
	cmd.Env = append(withoutScheduler(os.Environ()), c.Env()...)
	cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), storageEnv+"="+url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	job, _, _ = strings.Cut(strings.TrimSpace(stdout.String()), ";")
	if err != nil || job == "" {
		t.Fatalf("sbatch --wait: %v %s\n%s", err, stderr.String(), jobOutput(work))
	}
	return job, jobOutput(work)
}

// withoutScheduler drops what a scheduler or CUDA set in the test's own
// environment, so the job sees only what this cluster gives it.
func withoutScheduler(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		for _, p := range []string{"SLURM_", "SBATCH_", "SRUN_", "CUDA_VISIBLE_DEVICES=", "NVIDIA_VISIBLE_DEVICES=", storageEnv + "="} {
			if strings.HasPrefix(kv, p) {
				return true
			}
		}
		return false
	})
}

// jobOutput is the job's output files (servetune-JOB-HOST.out), for a
// failure's message.
func jobOutput(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "servetune-*.out"))
	var b strings.Builder
	for _, f := range files {
		text, _ := os.ReadFile(f)
		b.WriteString("--- " + filepath.Base(f) + "\n" + string(text))
	}
	return b.String()
}

// jobNode is the node of a worker id the recipe gave (JOB-NODE/SLOT).
func jobNode(worker, job string) (string, bool) {
	rest, ok := strings.CutPrefix(worker, job+"-")
	node, _, slot := strings.Cut(rest, "/")
	return node, ok && slot
}

// checkSlurmTrials checks the study finished exactly n trials, none cut
// short, each run by the job's worker on GPUs SLURM gave the job.
func checkSlurmTrials(t *testing.T, trials []slurmTrial, n int, job string, nodes []string) {
	t.Helper()
	gpus := slurmtest.DeviceIndices()
	finished := 0
	for _, tr := range trials {
		switch {
		case tr.State == "interrupted" || tr.State == "running":
			t.Errorf("trial %d is %s after the job ended", tr.Number, tr.State)
		case tr.State == "infeasible" && len(tr.Failure) == 0:
			continue // broke a rule, launched nothing
		default:
			finished++
		}
		if node, ok := jobNode(tr.Worker, job); !ok || !slices.Contains(nodes, node) {
			t.Errorf("trial %d ran on worker %q, want %s-NODE/SLOT from SLURM_JOB_ID and SLURMD_NODENAME, NODE one of %v", tr.Number, tr.Worker, job, nodes)
		}
		if len(tr.Devices) == 0 {
			t.Errorf("trial %d recorded no GPUs: the worker did not pack onto the job's", tr.Number)
		}
		for _, d := range tr.Devices {
			if !slices.Contains(gpus, d) {
				t.Errorf("trial %d ran on GPU %s, not one of the job's %v", tr.Number, d, gpus)
			}
		}
	}
	if finished != n {
		t.Errorf("%d trials finished, want n_trials = %d", finished, n)
	}
}
