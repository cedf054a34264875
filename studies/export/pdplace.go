package export

import (
	"strconv"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// DefaultRDMAResource is the extended resource an RDMA NIC is requested
// by when the export names none: the name the Mellanox/NVIDIA RDMA
// shared device plugin's classic configuration advertises. Clusters name
// it as their device plugin is configured (--rdma-resource).
const DefaultRDMAResource = "rdma/hca"

// NodeGroupLabel labels the pods of servers that must share a node.
const NodeGroupLabel = "servetune.node-group"

// placeServers sets, on a disaggregated deployment's plans (servers
// prefill first, then the router), what their placement needs: the
// servers the simulator put on one node (sim.PlaceServers, the target's
// node size), whose KV it moved over NVLink, share a NodeGroup their
// pods' affinity keeps on one node; a server with a peer of the other
// side on another node moved KV over the network and requests an RDMA
// NIC (NIXL and Mooncake, the backends disaggregation renders, move it
// by RDMA). Each server gets its own ReadWriteOnce cache claim, or all
// share one ReadWriteMany claim when the storage offers it: one
// ReadWriteOnce claim cannot be attached on two nodes.
func placeServers(plans []Plan, t space.Target, o Options) {
	var gpus []int
	for _, p := range plans {
		if p.Role != engines.RoleRouter {
			gpus = append(gpus, max(p.GPUs, 1))
		}
	}
	nodes := sim.PlaceServers(gpus, sim.NodeSize(t))
	perNode := map[int]int{}
	for _, n := range nodes {
		perNode[n]++
	}
	rdma := o.RDMAResource
	if rdma == "" {
		rdma = DefaultRDMAResource
	}
	for i := range nodes {
		p := &plans[i]
		if o.SharedCache {
			p.Claim = CacheClaim
		}
		if perNode[nodes[i]] > 1 {
			p.NodeGroup = processName(p.Study, p.Trial, "node-"+strconv.Itoa(nodes[i]))
		}
		if p.GPUs > 0 && crossesNodes(plans, nodes, i) {
			p.RDMA = rdma
		}
	}
}

// crossesNodes says whether server i has a peer of the other side on
// another node.
func crossesNodes(plans []Plan, nodes []int, i int) bool {
	for j := range nodes {
		if plans[j].Role != plans[i].Role && nodes[j] != nodes[i] {
			return true
		}
	}
	return false
}

// podLabels are the pod template's labels: its app, and its node group.
func podLabels(p Plan) obj {
	l := obj{"app": p.Name}
	if p.NodeGroup != "" {
		l[NodeGroupLabel] = p.NodeGroup
	}
	return l
}

// affinity requires a node-grouped pod's node to run the group's other
// pods (a pod that matches its own term may start first, so the group
// schedules), nil otherwise.
func affinity(p Plan) obj {
	if p.NodeGroup == "" {
		return nil
	}
	return obj{"podAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": []obj{{
		"labelSelector": obj{"matchLabels": obj{NodeGroupLabel: p.NodeGroup}},
		"topologyKey":   "kubernetes.io/hostname",
	}}}}
}
