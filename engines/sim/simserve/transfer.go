package simserve

import (
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// transferModel is a decode server's KV transfer time per request from
// the analytic model (sim.Simulator.KVTransferSeconds, the term Evaluate
// charges), for a prefill peer configured like this server on the same
// node: a server knows only its own side's flags. nil when the model
// cannot say (an engine or side it refuses); the stand-in
// (transferDelay) serves then.
func transferModel(sm *sim.Simulator, cfg space.Config, t space.Target) func(tokens int) time.Duration {
	pd := engines.PDPair(cfg)
	pair := t
	pair.GPUs = 2 * max(t.GPUs, 1)
	const probe = 1 << 14
	base, err := sm.KVTransferSeconds(pd, pair, 0, false)
	if err != nil {
		return nil
	}
	full, err := sm.KVTransferSeconds(pd, pair, probe, false)
	if err != nil {
		return nil
	}
	// The model is linear in the tokens: a fixed latency plus bytes.
	per := float64(full-base) / probe
	return func(tokens int) time.Duration { return base + time.Duration(per*float64(tokens)) }
}
