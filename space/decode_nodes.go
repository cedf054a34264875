package space

import "strings"

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
	t.NodeLaunch = d.strings(m, "node_launch", "target")
	if len(t.NodeLaunch) > 0 && !hasHostWord(t.NodeLaunch) {
		// Without {host} every rank would start on the same machine.
		d.fail("target.node_launch", "must contain {host} (e.g. [\"ssh\", \"{host}\"]), got %q", t.NodeLaunch)
	}
	if _, ok := m["nodes"]; len(t.NodeLaunch) > 0 && !ok {
		d.fail("target.node_launch", "needs target.nodes: it says how to start a rank on one of them")
	}
	t.GPUsPerNode = int(d.integer(m, "gpus_per_node", "target", 0))
	if _, given := m["gpus_per_node"]; given && t.GPUsPerNode <= 0 {
		d.fail("target.gpus_per_node", "must be a positive integer, got %s", FormatValue(m["gpus_per_node"]))
	}
}

func hasHostWord(argv []string) bool {
	for _, a := range argv {
		if strings.Contains(a, "{host}") {
			return true
		}
	}
	return false
}
