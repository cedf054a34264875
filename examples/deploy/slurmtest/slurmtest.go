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

// GPUs is how many fake GPUs each node offers: the count the deploy
// recipe's sbatch script asks for (--gres=gpu:8).
const GPUs = 8

// startTimeout bounds the wait for the nodes to become idle; the daemons
// are usually ready within a second or two.
const startTimeout = 30 * time.Second

// Cluster is a running cluster.
type Cluster struct {
	// Nodes are the nodes' names, as SLURMD_NODENAME says them in a job:
	// node1, node2…
	Nodes []string
	// Dir holds the cluster's configuration, state and logs.
	Dir  string
	conf string
}

// Env points SLURM's commands (sbatch, squeue, scancel) at this cluster;
// append it to a command's environment.
func (c *Cluster) Env() []string { return []string{"SLURM_CONF=" + c.conf} }

// DeviceIndices are a node's GPUs as SLURM numbers them in
// SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES: 0 to GPUs-1.
func DeviceIndices() []string {
	out := make([]string, GPUs)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// Start starts a cluster of n nodes on this host, each a slurmd offering
// GPUs fake GPUs, and returns once every node is idle; the test's cleanup
// cancels its jobs and stops it. It skips the test when SLURM cannot
// start, or fails it with CI set.
func Start(t testing.TB, nodes int) *Cluster {
	t.Helper()
	c, err := start(t, nodes)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("SLURM cannot start (required in CI; scripts/test installs slurm-wlm): %v", err)
		}
		t.Skipf("SLURM cannot start: %v", err)
	}
	return c
}

func start(t testing.TB, nodes int) (*Cluster, error) {
	progs, err := findPrograms("slurmctld", "slurmd", "sinfo", "scancel")
	if err != nil {
		return nil, err
	}
	cfg, err := newConfig(t.TempDir(), nodes)
	if err != nil {
		return nil, err
	}
	if err := cfg.write(); err != nil {
		return nil, err
	}
	c := &Cluster{Nodes: cfg.nodes, Dir: cfg.dir, conf: filepath.Join(cfg.dir, "slurm.conf")}
	ds, err := c.launchAll(t, progs)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.cancelJobs(progs["scancel"]) })
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	return c, c.awaitIdle(ctx, progs["sinfo"], ds)
}

// launchAll starts slurmctld, then a slurmd per node.
func (c *Cluster) launchAll(t testing.TB, progs map[string]string) ([]*daemon, error) {
	ctld, err := launch(t, c, "slurmctld", progs["slurmctld"], "-D", "-c")
	if err != nil {
		return nil, err
	}
	ds := []*daemon{ctld}
	for _, n := range c.Nodes {
		d, err := launch(t, c, "slurmd-"+n, progs["slurmd"], "-D", "-N", n)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
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

// newConfig is a configuration for n nodes on this host and user, in
// dir, on free loopback ports.
func newConfig(dir string, n int) (config, error) {
	if n < 1 {
		return config{}, fmt.Errorf("a cluster needs a node, not %d", n)
	}
	host, err := os.Hostname()
	if err != nil {
		return config{}, err
	}
	u, err := user.Current()
	if err != nil {
		return config{}, err
	}
	ports, err := freePorts(n + 1)
	if err != nil {
		return config{}, err
	}
	nodes := make([]string, n)
	for i := range nodes {
		nodes[i] = "node" + strconv.Itoa(i+1)
	}
	host, _, _ = strings.Cut(host, ".")
	return config{dir: dir, host: host, user: u.Username, nodes: nodes, ports: ports, cpus: runtime.NumCPU(), gpus: GPUs}, nil
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
	dirs := []string{"state", "log", "dev"}
	for _, n := range c.nodes {
		dirs = append(dirs, filepath.Join("spool", n))
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(c.dir, d), 0o755); err != nil {
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
