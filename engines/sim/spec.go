package sim

import "math"

// plan returns the tokens verified per sequence per step, the expected
// tokens emitted per step, and the drafting time per step.
//
// Tree drafting (topk > 1) spreads num_draft_tokens-1 candidates over
// num_steps depths; each depth is accepted when one of its w branches
// matches. Branches are correlated, so w counts as √w independent tries.
func (sp specSetup) plan(s *setup, pf *perf) (q int, accept, draftCost float64) {
	alpha := sp.acceptance
	q = sp.draftTokens
	w := 1.0
	if sp.topk > 1 {
		w = math.Min(float64(sp.topk), math.Max(1, float64(sp.draftTokens-1)/float64(sp.steps)))
	} else {
		q = sp.steps + 1
	}
	p := 1 - math.Pow(1-alpha, math.Sqrt(w))
	accept = 1
	pi := 1.0
	for i := 0; i < sp.steps; i++ {
		pi *= p
		accept += pi
	}
	if sp.algo == "NGRAM" {
		return q, accept, 0.15e-3 // CPU lookup, no draft forward
	}
	perDraft := sp.draftParamsB*1e9*2/float64(s.attnTP)/pf.bw + 0.35e-3
	// Tree verification builds masks and extra kernels per draft token.
	tree := 0.02e-3 * float64(q)
	return q, accept, float64(sp.steps)*perDraft + tree
}
