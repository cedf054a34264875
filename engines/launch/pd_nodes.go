package launch

import (
	"strconv"
	"strings"

	"github.com/servetune/servetune/engines"
)

// A disaggregated deployment larger than one node spreads its servers
// over target.nodes, whole servers per node (a server larger than a node
// is refused: its ranks would need the multi-node launch of one server
// inside the deployment's). Servers fill the nodes in order, prefill
// first, each taking the next GPUs of its node; the router runs on the
// head (the first node), as target.node_launch starts every process.

// pdPlacement is where each process of a deployment runs: its node and
// its GPUs there (router last, on the head, with none).
type pdPlacement struct {
	hosts   []string
	devices []string
	// remote: the processes start through target.node_launch.
	remote bool
}

// placePD places servers needing gpus (prefill first) on hosts of
// perNode GPUs each.
func placePD(gpus []int, hosts []string, perNode int) (pdPlacement, error) {
	var pl pdPlacement
	node, used := 0, 0
	for i, n := range gpus {
		if n > perNode {
			return pl, invalid("server %d of the disaggregated deployment needs %d GPUs, more than a node's %d (target.gpus_per_node)", i, n, perNode)
		}
		if used+n > perNode {
			node, used = node+1, 0
		}
		if node >= len(hosts) {
			return pl, invalid("the disaggregated deployment's servers need more than the %d nodes of target.nodes (%d GPUs each)", len(hosts), perNode)
		}
		ids := make([]string, n)
		for k := range ids {
			ids[k] = strconv.Itoa(used + k)
		}
		pl.hosts = append(pl.hosts, hosts[node])
		pl.devices = append(pl.devices, strings.Join(ids, ","))
		used += n
	}
	pl.hosts = append(pl.hosts, hosts[0])
	pl.devices = append(pl.devices, "")
	pl.remote = true
	return pl, nil
}

// pdServerGPUs is each server's GPU count, prefill first.
func pdServerGPUs(p engines.PD, e engines.Engine) []int {
	var out []int
	for i := 0; i < p.PrefillCount; i++ {
		out = append(out, e.GPUs(p.Prefill))
	}
	for i := 0; i < p.DecodeCount; i++ {
		out = append(out, e.GPUs(p.Decode))
	}
	return out
}

// pdAcrossNodes reports whether the deployment spreads over nodes: the
// target lists nodes and the deployment needs more GPUs than one has.
func pdAcrossNodes(d engines.Deployed) bool {
	return len(d.Target.Nodes) > 0 && d.GPUs > d.Target.NodeGPUs()
}

// placeOnNodes places the deployment over target.nodes and tells the
// router where each server is: its node's host when the servers bind
// every interface, else the bind address.
func placeOnNodes(d engines.Deployed, ports *engines.PDPorts) (pdPlacement, error) {
	t := d.Target
	pl, err := placePD(pdServerGPUs(*d.PD, d.Engine), t.Nodes, t.NodeGPUs())
	if err != nil {
		return pl, err
	}
	ports.Dial = nil
	for _, h := range pl.hosts[:len(pl.hosts)-1] {
		ports.Dial = append(ports.Dial, rankDialHost(engines.BindHost(t), h))
	}
	return pl, nil
}
