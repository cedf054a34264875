package space

import (
	"fmt"
	"strings"
)

// nodes decodes the keys that place a trial on several hosts: nodes
// (each entry a host or a SLURM hostlist), node_launch and gpus_per_node.
func (d *decoder) nodes(m map[string]any, t *Target) {
	for _, entry := range d.strings(m, "nodes", "target") {
		hosts, err := ExpandHostlist(entry)
		if err != nil {
			d.fail("target.nodes", "%v", err)
			continue
		}
		t.Nodes = append(t.Nodes, hosts...)
	}
	if h, dup := firstDuplicate(t.Nodes); dup {
		// Two ranks on one host would share its GPUs.
		d.fail("target.nodes", "lists host %q twice; each rank of a trial needs a node of its own", h)
	}
	t.NodeLaunch = d.strings(m, "node_launch", "target")
	if len(t.NodeLaunch) > 0 && !hasHostWord(t.NodeLaunch) {
		// Without {host} every rank would start on the same machine.
		d.fail("target.node_launch", "must contain {host} (e.g. [\"ssh\", \"{host}\"]), got %q", t.NodeLaunch)
	}
	if _, ok := m["nodes"]; len(t.NodeLaunch) > 0 && !ok && !d.opt.NodesGiven {
		d.fail("target.node_launch", "needs target.nodes (or --nodes): it says how to start a rank on one of them")
	}
	if err := t.CheckHead(); err != nil {
		d.fail("target.host", "%v", err)
	}
	t.GPUsPerNode = int(d.integer(m, "gpus_per_node", "target", 0))
	if _, given := m["gpus_per_node"]; given && t.GPUsPerNode <= 0 {
		d.fail("target.gpus_per_node", "must be a positive integer, got %s", FormatValue(m["gpus_per_node"]))
	}
}

// CheckHead refuses a loopback host when rank 0 of a multi-node trial
// serves on another machine: bound to the head node's loopback, servetune
// here could never reach it. Also for nodes given on the command line.
func (t Target) CheckHead() error {
	if len(t.NodeLaunch) > 0 && len(t.Nodes) > 0 && loopback(t.Host) && !loopback(t.Nodes[0]) {
		return fmt.Errorf("is %s, but rank 0 of a multi-node trial serves on %s: set host = \"0.0.0.0\" (or the head's address)", t.Host, t.Nodes[0])
	}
	return nil
}

func hasHostWord(argv []string) bool {
	for _, a := range argv {
		if strings.Contains(a, "{host}") {
			return true
		}
	}
	return false
}

func loopback(host string) bool {
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}

func firstDuplicate(xs []string) (string, bool) {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x] {
			return x, true
		}
		seen[x] = true
	}
	return "", false
}
