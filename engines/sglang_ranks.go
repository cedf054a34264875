package engines

import "github.com/servetune/servetune/space"

var _ multiNode = sglang{}

// rankArgs spreads SGLang over nodes the way python/sglang/srt/
// server_args.py (0.5.6 and ≈0.5.12-dev alike) does: every rank gets
// --nnodes, --node-rank and --dist-init-addr (HEAD:PORT, where the ranks'
// torch.distributed rendezvous listens); ranks above 0 run schedulers
// only and never open HTTP. The tensor-parallel group is what spans the
// nodes, so it must split evenly; data parallelism across nodes needs DP
// attention (server_args.py: "multi-node data parallel is not supported
// unless dp attention!").
func (sglang) rankArgs(cfg space.Config, _ Version, s spread) ([][]string, error) {
	tp, dp := knobInt(cfg, KnobTP), knobInt(cfg, KnobDP)
	if on, _ := cfg.Bool(KnobEnableDPAttention); dp > 1 && !(on && cfg.Has(KnobEnableDPAttention)) {
		return nil, invalid("sglang: dp=%d across %d nodes needs enable_dp_attention (server_args.py: multi-node data parallel is not supported unless dp attention)", dp, s.nodes)
	}
	if tp%s.nodes != 0 {
		return nil, invalid("sglang: tp=%d does not split evenly over %d nodes of %d GPUs", tp, s.nodes, s.perNode)
	}
	out := make([][]string, s.nodes)
	for i := range out {
		out[i] = []string{"--nnodes=" + itoa(s.nodes), "--node-rank=" + itoa(i), "--dist-init-addr=" + s.head}
	}
	return out, nil
}
