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

// A batch job asking for the node's GPUs runs, on the node, with SLURM's
// own SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES, in its job step too.
func TestStartRunsABatchJobOnEightGPUs(t *testing.T) {
	c := Start(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "job.sh")
	body := "#!/bin/sh\n#SBATCH --gres=gpu:8\n" +
		`echo "job $SLURMD_NODENAME $SLURM_JOB_GPUS $CUDA_VISIBLE_DEVICES"` + "\n" +
		`srun sh -c 'echo "step $SLURMD_NODENAME $SLURM_JOB_GPUS $CUDA_VISIBLE_DEVICES"'` + "\n"
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
	for _, want := range []string{"job", "step"} {
		line := want + " " + c.Node + " " + gpus + " " + gpus
		if !strings.Contains(string(out), line+"\n") {
			t.Errorf("job output lacks %q:\n%s", line, out)
		}
	}
}
