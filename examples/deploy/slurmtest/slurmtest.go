package slurmtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// GPUs is how many fake GPUs the node offers: the count the deploy
// recipe's sbatch script asks for (--gres=gpu:8).
const GPUs = 8

// startTimeout bounds the wait for the node to become idle; both daemons
// are usually ready within a second or two.
const startTimeout = 30 * time.Second

// Cluster is a running one-node cluster.
type Cluster struct {
	// Node is the node's name, as SLURMD_NODENAME says it in a job.
	Node string
	// Dir holds the cluster's configuration, state and logs.
	Dir  string
	conf string
}

// Env points SLURM's commands (sbatch, squeue, scancel) at this cluster;
// append it to a command's environment.
func (c *Cluster) Env() []string { return []string{"SLURM_CONF=" + c.conf} }

// DeviceIndices are the node's GPUs as SLURM numbers them in
// SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES: 0 to GPUs-1.
func DeviceIndices() []string {
	out := make([]string, GPUs)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// Start starts a cluster whose node is idle; the test's cleanup cancels
// its jobs and stops it. It skips the test when SLURM cannot start, or
// fails it with CI set.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, err := start(t)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("SLURM cannot start (required in CI; scripts/test installs slurm-wlm): %v", err)
		}
		t.Skipf("SLURM cannot start: %v", err)
	}
	return c
}

func start(t testing.TB) (*Cluster, error) {
	progs, err := findPrograms("slurmctld", "slurmd", "sinfo", "scancel")
	if err != nil {
		return nil, err
	}
	cfg, err := newConfig(t.TempDir())
	if err != nil {
		return nil, err
	}
	if err := cfg.write(); err != nil {
		return nil, err
	}
	c := &Cluster{Node: cfg.node, Dir: cfg.dir, conf: filepath.Join(cfg.dir, "slurm.conf")}
	ctld, err := launch(t, c, progs["slurmctld"], "-D", "-c")
	if err != nil {
		return nil, err
	}
	node, err := launch(t, c, progs["slurmd"], "-D", "-N", c.Node)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.cancelJobs(progs["scancel"]) })
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	return c, c.awaitIdle(ctx, progs["sinfo"], ctld, node)
}

// findPrograms finds SLURM's programs on PATH, or in /usr/sbin where
// Debian puts the daemons (not on a non-root user's PATH).
func findPrograms(names ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			if p, err = exec.LookPath(filepath.Join("/usr/sbin", n)); err != nil {
				return nil, fmt.Errorf("%s is not installed (Debian: apt-get install slurm-wlm): %w", n, err)
			}
		}
		out[n] = p
	}
	return out, nil
}

// newConfig is a configuration for this host and user, in dir, on two
// free loopback ports.
func newConfig(dir string) (config, error) {
	host, err := os.Hostname()
	if err != nil {
		return config{}, err
	}
	u, err := user.Current()
	if err != nil {
		return config{}, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return config{}, err
	}
	host, _, _ = strings.Cut(host, ".")
	return config{dir: dir, node: host, user: u.Username, cpus: runtime.NumCPU(), gpus: GPUs, ctldPort: ports[0], nodePort: ports[1]}, nil
}

// freePorts holds n listeners open at once so that the ports differ.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// write lays out the cluster's directory: configuration, the fake GPU
// devices, and the daemons' state, spool and log directories.
func (c config) write() error {
	for _, d := range []string{"state", "spool", "log", "dev"} {
		if err := os.Mkdir(filepath.Join(c.dir, d), 0o755); err != nil {
			return err
		}
	}
	for i := range c.gpus {
		if err := os.Symlink("/dev/null", filepath.Join(c.dir, "dev", "nvidia"+strconv.Itoa(i))); err != nil {
			return err
		}
	}
	files := map[string]string{"slurm.conf": c.slurmConf(), "gres.conf": c.gresConf(), "plugstack.conf": ""}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
