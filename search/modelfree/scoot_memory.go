package modelfree

import (
	"github.com/servetune/servetune/space"

	"github.com/servetune/servetune/search"
)

// familyMemory generalises out-of-memory failures along the memory
// pressure knobs within a family (the monotone model of Feasibility asks
// for every other knob to match, so in GLM-5.2's best family an OOM at
// memory fraction 0.9 says nothing about the same fraction with another
// DeepEP mode, and the search meets the cliff again and again).
//
// A config is predicted to run out of memory when an OOM trial of its
// family (same engine and parallelism) is at most as high on every
// pressure knob (search.PressureRank) — whatever the knobs that are neither.
// An OOM trial is no evidence once a completed trial of its family is at
// least as high on every pressure knob: there the family's memory is not
// monotone in those knobs (vLLM's memory fraction sizes the whole pool,
// so vLLM runs out of memory at the low end), and the model says nothing
// rather than something wrong. "default", or a pressure knob absent from
// one config, cannot be ranked: no prediction from that pair.
type familyMemory struct {
	fam     *families
	ok, oom []space.Config
}

// tell adds a trial's evidence; c is its config with the target's
// engine.
func (f *familyMemory) tell(c space.Config, o search.Observation) {
	switch {
	case o.Class == search.ClassOOM:
		f.oom = append(f.oom, c)
	case o.State == search.Complete:
		f.ok = append(f.ok, c)
	}
}

// predict reports whether c is predicted to run out of memory.
func (f *familyMemory) predict(c space.Config) bool {
	for _, o := range f.oom {
		if f.sameFamily(o, c) && pressureBelow(o, c) && !f.contradicted(o) {
			return true
		}
	}
	return false
}

// contradicted reports whether a completed trial of o's family is at
// least as high as o on every pressure knob.
func (f *familyMemory) contradicted(o space.Config) bool {
	for _, k := range f.ok {
		if f.sameFamily(o, k) && pressureBelow(o, k) {
			return true
		}
	}
	return false
}

func (f *familyMemory) sameFamily(a, b space.Config) bool { return f.fam.key(a) == f.fam.key(b) }

// pressureBelow reports whether a is at most as high as b on every
// pressure knob either has; false when one cannot be ranked.
func pressureBelow(a, b space.Config) bool {
	for _, k := range search.UnionKeys(a, b) {
		if !isPressureKnob(k) {
			continue
		}
		va, inA := a[k]
		vb, inB := b[k]
		ra, okA := search.PressureRank(k, va)
		rb, okB := search.PressureRank(k, vb)
		if !inA || !inB || !okA || !okB || ra > rb {
			return false
		}
	}
	return true
}

// isPressureKnob reports whether search.PressureRank ranks some value of knob k.
func isPressureKnob(k string) bool {
	switch k {
	case "mem_fraction", "chunked_prefill", "max_running", "cuda_graph_max_bs", "speculative_num_draft_tokens", "tp", "kv_cache_dtype", "model_variant":
		return true
	}
	return false
}
