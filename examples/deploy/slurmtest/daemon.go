package slurmtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopTimeout bounds each daemon's shutdown after SIGTERM; then it is
// killed.
const stopTimeout = 10 * time.Second

// daemon is a SLURM daemon running in the foreground as a child process.
type daemon struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd.Wait returned
	err    error         // cmd.Wait's, valid once exited is closed
}

// launch starts prog in the foreground, its output in log/NAME.out; the
// test's cleanup stops it.
func launch(t testing.TB, c *Cluster, name, prog string, args ...string) (*daemon, error) {
	out, err := os.Create(filepath.Join(c.Dir, "log", name+".out"))
	if err != nil {
		return nil, err
	}
	d := &daemon{name: name, cmd: exec.Command(prog, args...), exited: make(chan struct{})}
	d.cmd.Env = append(os.Environ(), c.Env()...)
	d.cmd.Stdout, d.cmd.Stderr = out, out
	if err := d.cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		d.err = d.cmd.Wait()
		out.Close()
		close(d.exited)
	}()
	t.Cleanup(d.stop)
	return d, nil
}

// stop asks the daemon to end and kills it if it has not within
// stopTimeout.
func (d *daemon) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(stopTimeout):
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
}

// awaitIdle polls sinfo until every node is idle, a daemon exits or ctx
// ends; the error carries the daemons' logs.
func (c *Cluster) awaitIdle(ctx context.Context, sinfo string, ds []*daemon) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	want := strings.Repeat("idle\n", len(c.Nodes))
	for {
		states := c.nodeStates(ctx, sinfo)
		if states == want {
			return nil
		}
		for _, d := range ds {
			select {
			case <-d.exited:
				return fmt.Errorf("%s exited (%v) before the nodes were idle:\n%s", d.name, d.err, c.logs())
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nodes not idle after %v (sinfo: %q): %w\n%s", startTimeout, states, ctx.Err(), c.logs())
		case <-tick.C:
		}
	}
}

// nodeStates is sinfo's word for each node (idle, down, unknown…), one a
// line, or what sinfo said when it failed.
func (c *Cluster) nodeStates(ctx context.Context, sinfo string) string {
	cmd := exec.CommandContext(ctx, sinfo, "--noheader", "--Node", "--format", "%T")
	cmd.Env = append(os.Environ(), c.Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out) + " (" + err.Error() + ")"
	}
	return string(out)
}

// cancelJobs cancels every job still in the partition, so that no worker
// outlives the test.
func (c *Cluster) cancelJobs(scancel string) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, scancel, "--quiet", "--partition", partition)
	cmd.Env = append(os.Environ(), c.Env()...)
	_ = cmd.Run()
}

// logs is the tail of each daemon's log, for errors.
func (c *Cluster) logs() string {
	files, _ := filepath.Glob(filepath.Join(c.Dir, "log", "*"))
	var b strings.Builder
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(text)), "\n")
		fmt.Fprintf(&b, "--- %s\n%s\n", filepath.Base(f), strings.Join(lines[max(0, len(lines)-20):], "\n"))
	}
	return b.String()
}
