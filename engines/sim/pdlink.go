package sim

import (
	"time"

	"github.com/servetune/servetune/space"
)

// The KV link of a disaggregated deployment: a prefill server's ranks
// write (or the decode server's read, NIXL/Mooncake RDMA) the request's
// KV blocks into the decode rank's cache over NVLink when both servers
// are on one node, else over each GPU's network NIC (the card's net_gbs).
const (
	// kvLinkEff is the share of a link's bandwidth a transfer of many
	// KV blocks reaches (the same 0.8 as a PCIe offload copy).
	kvLinkEff = 0.8
	// kvTransferLatency is the fixed cost of one transfer: the bootstrap
	// handshake, block descriptors and the completion notification.
	kvTransferLatency = 1e-3
)

// kvLink is what one transfer's time depends on, per token: the bytes
// the busiest GPU of either side moves, and its link's bandwidth.
type kvLink struct {
	perToken float64 // seconds per token on the busiest GPU
}

// kvGeometry is the seconds per token of moving KV from a prefill rank to
// a decode rank. Each decode GPU receives what its own cache holds of a
// token (MLA: the whole latent, replicated over attention TP; GQA: its
// KV-head shard); the prefill rank's GPUs share the sending, each at
// least what the decode side receives in total divided among them. The
// transfer takes as long as the busier of the two ends.
func kvGeometry(prefill, decode *setup, gbs float64) kvLink {
	recvPerGPU := decode.kvPerTokenGPU()
	total := recvPerGPU * float64(decode.attnTP)
	sendPerGPU := total / float64(max(prefill.attnTP, 1))
	busiest := max(recvPerGPU, sendPerGPU)
	return kvLink{perToken: busiest / (gbs * 1e9 * kvLinkEff)}
}

// seconds is the time to move one request's KV of tokens tokens.
func (l kvLink) seconds(tokens int) float64 {
	return kvTransferLatency + float64(tokens)*l.perToken
}

// linkGBs is the per-GPU bandwidth between two servers: NVLink on one
// node (PCIe where the card has no NVLink), the network across nodes
// (net_gbs, else the NIC's PCIe host link).
func linkGBs(g GPUCard, crossNode bool) float64 {
	if crossNode {
		if g.NetGBs > 0 {
			return g.NetGBs
		}
		return max(g.PCIeGBs, 16)
	}
	if g.NVLinkGBs > 0 {
		return g.NVLinkGBs
	}
	return max(g.PCIeGBs, 16)
}

// KVTransferSeconds is the simulated time to move the KV cache of one
// request of tokens prompt tokens from a prefill server to a decode
// server of the disaggregated config cfg on target t, over NVLink or,
// when crossNode, the GPUs' network: the busiest GPU's bytes (each side's
// KV layout and kv_cache_dtype, kvGeometry) ÷ (link × 0.8) + 1 ms. It is
// the transfer Evaluate charges, for role servers that simulate it
// live. A config that is not disaggregated, or whose sides the engine
// would refuse, is an error (an *engines.Failure for the latter).
func (sm *Simulator) KVTransferSeconds(cfg space.Config, t space.Target, tokens int, crossNode bool) (time.Duration, error) {
	ps, err := sm.resolvePD(cfg, t)
	if err != nil {
		return 0, err
	}
	l := kvGeometry(ps.prefill, ps.decode, linkGBs(ps.prefill.gpu, crossNode))
	return seconds(l.seconds(tokens)), nil
}

// placePD puts every server of a PD deployment on a node, prefill
// servers first and then decode servers (PlaceServers).
func placePD(prefillGPUs, nPrefill, decodeGPUs, nDecode, perNode int) (pNode, dNode []int) {
	gpus := make([]int, 0, nPrefill+nDecode)
	for range nPrefill {
		gpus = append(gpus, prefillGPUs)
	}
	for range nDecode {
		gpus = append(gpus, decodeGPUs)
	}
	nodes := PlaceServers(gpus, perNode)
	return nodes[:nPrefill:nPrefill], nodes[nPrefill:]
}

// PlaceServers is the node of each server of a disaggregated deployment
// (their GPUs, prefill first, in order) as the simulator places them:
// filling one node before the next, never splitting a server over two
// nodes (the simulator does not model a multi-node server); perNode ≤ 0
// is one node for all. Servers on one node move KV over NVLink, the
// others over the network: an export keeps the former together.
func PlaceServers(gpus []int, perNode int) []int {
	node, free := 0, perNode
	out := make([]int, len(gpus))
	for i, g := range gpus {
		if perNode > 0 && g > free && free < perNode {
			node, free = node+1, perNode
		}
		free -= g
		out[i] = node
	}
	return out
}

// nodeSize is NodeSize.
func nodeSize(t space.Target) int { return NodeSize(t) }

// NodeSize is how many GPUs share one node's NVLink: the target's
// gpus_per_node when it spans nodes, else all of its GPUs (the
// aggregated simulator's view of a target).
func NodeSize(t space.Target) int {
	if len(t.Nodes) > 0 || t.GPUsPerNode > 0 {
		return t.NodeGPUs()
	}
	return max(t.GPUs, 1)
}
