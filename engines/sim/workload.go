package sim

import (
	"fmt"

	"github.com/servetune/servetune/bench"
)

// request is one prompt of the workload as the client will send it.
type request struct {
	in, out int
	// group is the shared prompt prefix (system prompt, random prefix_len)
	// it starts with, -1 for none, groupLen its tokens; shared is how many
	// leading tokens equal request after's prompt and reply (-1: none),
	// which must finish before this one is sent (bench.PlannedRequest).
	group, groupLen int
	shared, after   int
	// same names the prompt's text: requests with the same non-negative
	// value send identical prompts, which a prefix cache serves whole once
	// one of them has been computed (-1: no repeat known).
	same int
	// arrival is when the client wants to send it (seconds from start);
	// the concurrency cap may delay the actual send.
	arrival float64
	// arrived is the prompt tokens whose KV came from a prefill server
	// (live_pd.go); 0 outside a disaggregated decode server.
	arrived int
	// blocks are a trace request's full prompt blocks of blockLen tokens
	// (bench.PlannedRequest.Blocks), which the block cache serves
	// (prefix_blocks.go); nil outside a trace.
	blocks   []uint64
	blockLen int
}

// workload takes lengths and arrivals from the profile's plan, the same
// schedule the live load generator follows.
func workload(p bench.Profile) ([]request, error) {
	pl, err := p.Plan()
	if err != nil {
		return nil, fmt.Errorf("sim: profile %q: %w", p.Name, err)
	}
	reqs := make([]request, len(pl.Requests))
	users := repeatingUsers(p)
	for i, r := range pl.Requests {
		reqs[i] = request{in: r.InputLen, out: max(r.OutputLen, 1), group: r.Group, groupLen: r.GroupLen,
			shared: r.Shared, after: r.After, arrival: r.Arrival.Seconds(), same: -1, blocks: r.Blocks, blockLen: r.BlockTokens}
		if users > 0 {
			reqs[i].same = i % users
		}
	}
	return reqs, nil
}

// repeatingUsers is N when request i of the plan sends the same prompt as
// request i-N: a single-turn shared_prefix profile gives request i to user
// i mod N, and a user's question is the same every round
// (bench.SharedPrefix), as inference-perf cycles through its pre-generated
// prompts. A real prefix cache then serves the whole prompt from the
// second round on, not only the system prompt; 0 otherwise.
func repeatingUsers(p bench.Profile) int {
	sp := p.SharedPrefix
	if p.Dataset != bench.DatasetSharedPrefix || sp == nil || sp.MultiTurn {
		return 0
	}
	return sp.Groups * sp.UsersPerGroup
}
