package prior

import (
	"math"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// history is what the study measured, as the prior's proposers read it:
// the completed trials (in order, with and without their configs), the
// pruned ones with their projected values, the incumbent, and who
// proposed each config asked.
type history struct {
	sp *space.Space
	// measured are the completed trials' values (the front pickHV
	// extends), measuredCfgs the same trials with their configs.
	measured     [][]float64
	measuredCfgs []measuredConfig
	// prunedCfgs are the pruned trials with their projected values
	// (residual_pruned.go).
	prunedCfgs []measuredConfig
	// incumbent is the best measured config on the first objective.
	incumbent    space.Config
	incumbentVal float64
	// proposed says who proposed each config asked, and what the prior
	// predicted for it (Explain).
	proposed map[string]search.Proposal
}

// measuredConfig is a completed trial: its config and measured values.
type measuredConfig struct {
	cfg    space.Config
	values []float64
}

func newHistory(sp *space.Space) *history {
	return &history{sp: sp, incumbentVal: math.NaN()}
}

// complete records a completed trial of c.
func (h *history) complete(c space.Config, values []float64) {
	h.measured = append(h.measured, values)
	h.measuredCfgs = append(h.measuredCfgs, measuredConfig{c, values})
	if h.incumbent == nil || h.sp.Objectives[0].Better(values[0], h.incumbentVal) {
		h.incumbent, h.incumbentVal = c, values[0]
	}
}

// measuredMean is a measured config's per-objective geometric mean over
// its measurements: a config confirmed three times is one point of the
// front at its mean, not three noisy points of which the luckiest counts.
type measuredMean struct {
	measuredConfig
	n int
}

// measuredMeans are the measured configs, each once, at their means, in
// the order they were first measured.
func (h *history) measuredMeans() []measuredMean {
	idx := map[string]int{}
	var out []measuredMean
	var logs [][]float64
	for _, m := range h.measuredCfgs {
		k := search.ConfigKey(h.sp, m.cfg)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, measuredMean{measuredConfig{cfg: m.cfg}, 0})
			logs = append(logs, make([]float64, len(m.values)))
		}
		out[i].n++
		for j, v := range m.values {
			logs[i][j] += math.Log(v)
		}
	}
	for i := range out {
		out[i].values = make([]float64, len(logs[i]))
		for j, s := range logs[i] {
			out[i].values[j] = math.Exp(s / float64(out[i].n))
		}
	}
	return out
}

// meanPoints are the measured configs' mean values: the front pickHV
// extends.
func meanPoints(ms []measuredMean) [][]float64 {
	out := make([][]float64, len(ms))
	for i, m := range ms {
		out[i] = m.values
	}
	return out
}

// frontParents are the measured configs on the front of the measured
// means, newest first.
func (h *history) frontParents() []measuredConfig {
	ms := h.measuredMeans()
	pts := make([]search.Point, len(ms))
	for i, m := range ms {
		pts[i] = search.Point{Values: m.values}
	}
	idx := search.Front(pts, h.sp.Objectives)
	sort.Sort(sort.Reverse(sort.IntSlice(idx)))
	out := make([]measuredConfig, len(idx))
	for i, j := range idx {
		out[i] = ms[j].measuredConfig
	}
	return out
}

// completedOn counts the completed trials by their value of knob.
func (h *history) completedOn(knob string) map[string]int {
	out := map[string]int{}
	for _, m := range h.measuredCfgs {
		out[space.FormatValue(m.cfg[knob])]++
	}
	return out
}
