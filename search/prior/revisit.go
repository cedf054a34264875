package prior

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A pruned trial is stopped on partial evidence with a noise margin; a
// false prune costs the config for the rest of the study unless someone
// measures it again. The prior does, once: when, corrected by at least
// revisitAfter trials completed after the prune, it ranks the pruned
// config first among its own candidates and predicts it better than the
// best measured value. Such a proposal's origin is "revisit", which the
// store lets through its no-config-twice check for configs whose every
// trial was pruned.

// revisitAfter is how many completed trials must follow a prune before
// the prior may propose the config again: its ranking must have learnt
// something since.
const revisitAfter = 3

// prunedConfig is a pruned config's state: the completed trials told
// when it was pruned, and whether it was proposed again already.
type prunedConfig struct {
	at        int
	revisited bool
}

// revisit decides whether a pruned config may be measured again: since
// completed trials followed its prune, and the prior's corrected
// prediction of the first objective beats the incumbent's measured value.
func revisit(since int, predicted, incumbent float64, o space.Objective) bool {
	if since < revisitAfter || math.IsNaN(predicted) {
		return false
	}
	return math.IsNaN(incumbent) || o.Better(predicted, incumbent)
}

// revisits are the pruned configs by key.
type revisits map[string]*prunedConfig

// tell remembers a pruned config (pruned; at: the completed trials told
// so far), and that a config pruned before was measured again (whatever
// the outcome: it is revisited once).
func (r revisits) tell(k string, pruned bool, at int) {
	if p := r[k]; p != nil {
		p.revisited = true
		return
	}
	if pruned {
		r[k] = &prunedConfig{at: at}
	}
}

// revisitable reports whether told candidate k is a pruned config the
// prior may propose again now.
func (st *state) revisitable(k string, cd *candidate) bool {
	p := st.revisits[k]
	if p == nil || p.revisited {
		return false
	}
	vals, ok := st.estimate(cd)
	if !ok || len(vals) == 0 {
		return false
	}
	pred := vals[0] * math.Exp(st.tab.residOf(0, cd))
	return revisit(len(st.hist.measured)-p.at, pred, st.hist.incumbentVal, st.sp.Objectives[0])
}

// originOf is the origin of the prior's own pick c: "revisit" for a
// pruned config proposed again, else "prior".
func (st *state) originOf(c space.Config) string {
	if st.tab.told[search.ConfigKey(st.sp, c)] {
		return "revisit"
	}
	return "prior"
}
