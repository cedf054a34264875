package sim

import (
	"fmt"

	"github.com/servetune/servetune/bench"
)

// ProfileNotes are warnings about simulating profile p, for the command
// line to print when a study loads on the simulator. A shared_prefix
// profile with inference-perf's enable_multi_turn_chat = true is
// simulated as declared — each round resends the whole conversation, so
// the prompts grow — but the real vLLM runs that declare it (the
// calibration set) measured latencies consistent only with every round
// being system prompt + question (docs/sim.md, "Multi-turn in the
// calibration runs"): such a profile copied from an inference-perf
// config simulates far slower prefills and KV reads than that server
// measured.
func ProfileNotes(p bench.Profile) []string {
	sp := p.SharedPrefix
	if p.DatasetName() != bench.DatasetSharedPrefix || sp == nil || !sp.MultiTurn {
		return nil
	}
	return []string{fmt.Sprintf("profile %q: enable_multi_turn_chat = true is simulated with growing conversation histories; "+
		"the real vLLM runs whose inference-perf configs declare it measured latencies consistent only with each round being "+
		"system prompt + question (docs/sim.md, \"Multi-turn in the calibration runs\"), where the histories gave errors of "+
		"hundreds of percent: set enable_multi_turn_chat = false to predict such a run", p.Name)}
}
