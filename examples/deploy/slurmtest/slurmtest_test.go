package slurmtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A batch job over two nodes asking for each node's GPUs runs one task
// on each node, with SLURM's own SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES.
func TestStartRunsABatchJobOnTwoNodesOfEightGPUs(t *testing.T) {
	c := Start(t, 2)
	dir := t.TempDir()
	script := filepath.Join(dir, "job.sh")
	body := "#!/bin/sh\n#SBATCH --nodes=2 --ntasks-per-node=1 --gres=gpu:8\n" +
		`srun sh -c 'echo "task $SLURMD_NODENAME $SLURM_JOB_GPUS $CUDA_VISIBLE_DEVICES"'` + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sbatch", "--wait", "--chdir", dir, "--output", filepath.Join(dir, "out"), script)
	cmd.Env = append(os.Environ(), c.Env()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sbatch: %v\n%s\n%s", err, out, c.logs())
	}
	out, err := os.ReadFile(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	gpus := strings.Join(DeviceIndices(), ",")
	for _, node := range []string{"node1", "node2"} {
		line := "task " + node + " " + gpus + " " + gpus
		if !strings.Contains(string(out), line+"\n") {
			t.Errorf("job output lacks %q:\n%s", line, out)
		}
	}
}

func TestStartRefusesAClusterWithoutNodes(t *testing.T) {
	if _, err := newConfig(t.TempDir(), 0); err == nil {
		t.Error("a cluster of 0 nodes was configured")
	}
}
