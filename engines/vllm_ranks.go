package engines

import "github.com/servetune/servetune/space"

var _ multiNode = vllm{}

// rankArgs spreads vLLM over nodes. Replicas that fit a node spread as
// data parallelism with one API server on the head (vllm/engine/
// arg_utils.py and vllm/entrypoints/cli/serve.py, in both readings,
// ≈0.11.0 and ≈0.23-dev); a tensor-parallel group larger than a node
// needs the multiprocessing executor's own rendezvous (0.11.1 on).
func (vllm) rankArgs(cfg space.Config, v Version, s spread) ([][]string, error) {
	tp, dp := knobInt(cfg, KnobTP), knobInt(cfg, KnobDP)
	if tp <= s.perNode {
		return vllmDPRanks(tp, dp, s)
	}
	return vllmTPRanks(tp, dp, v, s)
}

// vllmDPRanks: --data-parallel-size-local (-dpl) replicas per node,
// coordinated over --data-parallel-address (-dpa) and
// --data-parallel-rpc-port (-dpp) on the head; the other nodes run
// --headless engines numbered from --data-parallel-start-rank (-dpr).
// --data-parallel-size itself is the dp knob's flag.
func vllmDPRanks(tp, dp int, s spread) ([][]string, error) {
	if dp%s.nodes != 0 || dp/s.nodes*tp > s.perNode {
		return nil, invalid("vllm: dp=%d replicas of tp=%d do not split evenly over %d nodes of %d GPUs", dp, tp, s.nodes, s.perNode)
	}
	local := dp / s.nodes
	out := make([][]string, s.nodes)
	for i := range out {
		var args []string
		if i > 0 {
			args = []string{"--headless"}
		}
		args = append(args, "--data-parallel-size-local="+itoa(local))
		if i > 0 {
			args = append(args, "--data-parallel-start-rank="+itoa(i*local))
		}
		out[i] = append(args, "--data-parallel-address="+s.headHost, "--data-parallel-rpc-port="+itoa(s.port))
	}
	return out, nil
}

// vllmTPRanks: --nnodes (-n), --node-rank (-r), --master-addr and
// --master-port (ParallelConfig in vllm/engine/arg_utils.py; the
// multiprocessing executor across nodes, PR #23691, first released in
// 0.11.1); every rank but the head runs --headless. Before 0.11.1 a group
// larger than a node needs a Ray cluster, which servetune does not start.
func vllmTPRanks(tp, dp int, v Version, s spread) ([][]string, error) {
	if !v.AtLeast(vllm0111) {
		return nil, invalid("vllm %s cannot run tp=%d across nodes without Ray: --nnodes/--node-rank/--master-addr arrived in 0.11.1 (PR #23691); keep tp ≤ %d (target.gpus_per_node) and scale with dp, or target vllm ≥ 0.11.1", v, tp, s.perNode)
	}
	if tp*dp%s.nodes != 0 {
		return nil, invalid("vllm: tp=%d × dp=%d GPUs do not split evenly over %d nodes of %d GPUs", tp, dp, s.nodes, s.perNode)
	}
	out := make([][]string, s.nodes)
	for i := range out {
		out[i] = []string{"--nnodes=" + itoa(s.nodes), "--node-rank=" + itoa(i), "--master-addr=" + s.headHost, "--master-port=" + itoa(s.port)}
		if i > 0 {
			out[i] = append(out[i], "--headless")
		}
	}
	return out, nil
}
