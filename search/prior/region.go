package prior

import (
	"fmt"
	"math"
	"slices"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A prior can be wrong in one region and right elsewhere: the simulator's
// DP-attention exchange may be too fast while its plain TP model holds,
// or its memory plan may be off for fp8 KV caches only. The regions it is
// judged in are those its own structure separates: the engine, the
// parallelism family, the speculative-decoding family and the memory
// plan's knobs. Each completed trial's prediction error is recorded under
// every region its config belongs to; on the prior's turn a candidate in
// a region where the prior misses keeps only a share of its turns, so
// proposals there go to the model-free sampler as fast as the evidence
// says.

// minRegionErrs is how many errors a region needs before it is judged:
// fewer than the global check (a region sees only part of the trials).
const minRegionErrs = 3

// regionOf names the regions config c belongs to, one "key=value" each.
func regionOf(c space.Config) []string {
	var out []string
	if e, ok := c["engine"]; ok {
		out = append(out, fmt.Sprintf("engine=%v", e))
	}
	out = append(out, "parallel="+parallelFamily(c))
	if a, ok := c["speculative_algorithm"]; ok {
		out = append(out, fmt.Sprintf("speculative=%v", a))
	}
	return append(out, memoryRegions(c)...)
}

// memoryRegions are c's regions of the memory plan's knobs.
func memoryRegions(c space.Config) []string {
	var out []string
	for _, k := range []string{"mem_fraction", "kv_cache_dtype", "model_variant"} {
		if v, ok := c[k]; ok {
			out = append(out, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return out
}

// parallelFamily is the kind of parallelism a config uses: data-parallel
// attention or replicas, expert parallelism (with its all-to-all backend), pipeline
// parallelism, or plain tensor parallelism; combinations join with "+".
func parallelFamily(c space.Config) string {
	fam := ""
	add := func(s string) {
		if fam != "" {
			fam += "+"
		}
		fam += s
	}
	if b, _ := c["enable_dp_attention"].(bool); b {
		add("dp-attention")
	} else if n, ok := space.Number(c["dp"], false); ok && n > 1 {
		add("dp")
	}
	if n, ok := space.Number(c["ep"], false); ok && n > 1 {
		ep := "ep"
		if b, ok := c["moe_a2a_backend"].(string); ok && b != "none" {
			ep += "/" + b
		}
		add(ep)
	}
	if n, ok := space.Number(c["pp"], false); ok && n > 1 {
		add("pp")
	}
	if fam == "" {
		return "tp"
	}
	return fam
}

// regionTrust holds the prior's prediction errors, each with the regions
// of its config, and the regions' feasibility contradictions: a config
// the prior called feasible that failed to start, or one it called
// infeasible that completed.
// A nil *regionTrust trusts every region and records nothing.
type regionTrust struct {
	errs  []regionErr
	wrong map[string]int
	// ver counts the errors recorded; share is each region's share of
	// turns (regionEveryFor) as of ver, so that judging a candidate costs
	// its few regions, not a pass over every error for each.
	ver   int
	share map[string]int
}

type regionErr struct {
	regions []string
	err     float64
}

func newRegionTrust() *regionTrust {
	return &regionTrust{wrong: map[string]int{}}
}

// miss records one error of a config like c.
func (rt *regionTrust) miss(c space.Config, err float64) {
	if rt == nil || math.IsNaN(err) || math.IsInf(err, 0) {
		return
	}
	rt.errs = append(rt.errs, regionErr{regionOf(c), err})
	rt.ver++
	clear(rt.share)
}

// contradicted records that c's feasibility prediction was wrong.
func (rt *regionTrust) contradicted(c space.Config) {
	if rt == nil {
		return
	}
	for _, r := range memoryRegions(c) {
		rt.wrong[r]++
	}
}

// split is the errors inside region r and outside it, oldest first.
func (rt *regionTrust) split(r string) (in, out []float64) {
	for _, e := range rt.errs {
		if slices.Contains(e.regions, r) {
			in = append(in, e.err)
		} else {
			out = append(out, e.err)
		}
	}
	return in, out
}

// every is one in how many of the prior's turns may go to a config like
// c: the share of its worst region (priorEvery where every region holds).
func (rt *regionTrust) every(c space.Config) int {
	every := priorEvery
	if rt == nil {
		return every
	}
	for _, r := range regionOf(c) {
		every = max(every, rt.regionEvery(r))
	}
	return every
}

// regionEvery is region r's share of turns, computed once per error
// recorded.
func (rt *regionTrust) regionEvery(r string) int {
	if e, ok := rt.share[r]; ok {
		return e
	}
	if rt.share == nil {
		rt.share = map[string]int{}
	}
	e := regionEveryFor(rt.split(r))
	rt.share[r] = e
	return e
}

// regionEveryFor is a region's share given its errors and those of the
// rest of the study (each oldest first): a region is judged once both
// have minRegionErrs errors, and loses turns only when its recent errors
// exceed the rest's by half again — a region no worse than elsewhere is
// the global trust's business, and one that holds every config (a knob
// the space does not vary) separates nothing.
func regionEveryFor(in, out []float64) int {
	if len(in) < minRegionErrs || len(out) < minRegionErrs {
		return priorEvery
	}
	if !(recentMedian(in) > 1.5*recentMedian(out)) {
		return priorEvery
	}
	return shareFor(in, minRegionErrs)
}

// memoryWrong reports whether c's memory-plan regions saw the prior's
// feasibility prediction fail twice or more: its feasibility filter then
// stands aside there, and the learned feasibility model decides.
func (rt *regionTrust) memoryWrong(c space.Config) bool {
	if rt == nil {
		return false
	}
	for _, r := range memoryRegions(c) {
		if rt.wrong[r] >= 2 {
			return true
		}
	}
	return false
}

// regionTurn decides whether the prior's pick-th own proposal may go to
// a region whose share is one in every: always where it is trusted,
// otherwise on one pick in every.
func regionTurn(every, pick int) bool {
	return every <= priorEvery || pick%every == 0
}

// tellRegions records where the prior's feasibility prediction for a
// told trial was wrong.
func (st *state) tellRegions(o search.Observation, c space.Config, cd *candidate) {
	failed := o.Class == search.ClassOOM || o.Class == search.ClassInvalid
	if (cd.feasible && failed) || (!cd.feasible && o.State == search.Complete) {
		st.regions.contradicted(c)
	}
}
