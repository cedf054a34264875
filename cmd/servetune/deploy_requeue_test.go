//go:build linux

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The requeue recipe, run by bash with fake srun and scontrol: on the
// time limit's USR1 it stops the workers with SIGTERM, requeues its own
// job and exits 0.
func TestSlurmRequeueScriptStopsWorkersAndRequeues(t *testing.T) {
	script, _ := filepath.Abs("../../examples/deploy/slurm/servetune-requeue.sbatch")
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	fakes := map[string]string{
		// srun: says it started, then runs until SIGTERM like a worker.
		"srun": `#!/bin/sh
echo "$@" > "` + dir + `/srun.args"
trap 'kill $s 2>/dev/null; echo term > "` + dir + `/srun.term"; exit 130' TERM
echo started > "` + ready + `"
while :; do sleep 5 & s=$!; wait $s; done
`,
		"scontrol": "#!/bin/sh\necho \"$@\" > \"" + dir + "/scontrol.args\"\n",
	}
	for name, src := range fakes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", script, "space.toml")
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "SLURM_JOB_ID=42", "SERVETUNE_STORAGE=postgres://db/x")
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// However the test ends, no fake worker outlives it.
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	started := make(chan struct{})
	go func() {
		// Blocks until srun writes; read it all, or srun dies of SIGPIPE.
		if f, err := os.Open(ready); err == nil {
			io.ReadAll(f)
			f.Close()
		}
		close(started)
	}()
	deadline := time.After(20 * time.Second)
	select {
	case <-started:
	case <-deadline:
		cmd.Process.Kill()
		t.Fatalf("srun never started:\n%s", out)
	}
	if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the script exited %v:\n%s", err, out)
		}
	case <-deadline:
		cmd.Process.Kill()
		t.Fatalf("the script did not end after USR1:\n%s", out)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return strings.TrimSpace(string(b))
	}
	if got := read("scontrol.args"); got != "requeue 42" {
		t.Errorf("scontrol %q, want requeue 42", got)
	}
	if read("srun.term") != "term" {
		t.Errorf("the workers were not sent SIGTERM:\n%s", out)
	}
	args := strings.Fields(read("srun.args"))
	if !strings.Contains(strings.Join(args, " "), "servetune worker space.toml") {
		t.Errorf("srun ran %q", args)
	}
	var flags []any
	for _, a := range args[slices.Index(args, "worker"):] {
		flags = append(flags, a)
	}
	checkWorkerFlags(t, flags)
}
