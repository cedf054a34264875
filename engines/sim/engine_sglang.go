package sim

import (
	"fmt"

	"github.com/servetune/servetune/engines"
)

// sglangRules are SGLang's decisions: a static pool of weights and KV
// (mem_fraction_static), DP attention inside the TP group, DeepEP.
type sglangRules struct{}

func sglangModel() engineModel {
	return engineModel{
		memEff: 0.89, computeEff: 0.36, stepOverhead: 1.6e-3, perSeq: 5e-6, eagerPerLayer: 80e-6,
		requestOverhead: 12e-3, mlaPrefill: 1, mixed: false, reserve: 0.3, graphs: true, prefixCacheDefault: true, loadGBs: 2.0,
		stepScale: 0.93, name: engines.SGLang, rules: sglangRules{},
		dpAttnInTP: true, deepEP: true, splitMaxRunning: true, fixDraftTokens: true,
		// sgl-router (Rust).
		router: pdRouting{service: 0.2e-3, handoff: false, ok: true},
	}
}

// defaultMaxRunning: effectively bounded by the KV pool.
func (sglangRules) defaultMaxRunning(*setup) int { return 4096 }

func (sglangRules) defaultGraphBS(s *setup) int {
	mem := s.gpu.MemGiB
	switch {
	case mem < 35:
		return 24
	case mem < 60:
		return 32
	case mem < 160 && s.tp < 4:
		return 256
	}
	return 512
}

func (sglangRules) defaultChunk(s *setup) int {
	switch mem := s.gpu.MemGiB; {
	case mem < 35:
		return 2048
	case mem < 60:
		return 4096
	case mem < 160:
		return 8192
	}
	return 16384
}

// kvPool: the static pool (weights + KV) is mem_fraction_static of the
// GPU; everything else must fit in the rest.
func (sglangRules) kvPool(s *setup, p *memPlan) error {
	if !s.memFracSet {
		s.memFrac = sglangAutoFraction(s)
	}
	p.kv = s.memFrac*p.total - p.weights
	if p.kv <= 0 {
		return s.oom(fmt.Sprintf("Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=%g", s.memFrac), *p,
			"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static="+fmt.Sprint(s.memFrac))
	}
	if head := (1 - s.memFrac) * p.total; head < p.activation+p.graphs+p.other {
		return s.torchOOM(*p, head-p.graphs-p.other, p.activation)
	}
	return nil
}

func (sglangRules) checkPlan(*setup, memPlan) error { return nil }

func (sglangRules) planLog(s *setup, p memPlan) []string {
	return []string{
		fmt.Sprintf("Load weight end. type=%s, dtype=%s, avail mem=%.2f GB, mem usage=%.2f GB.", s.model.Name, s.model.WeightDtype, (p.total-p.weights)/gib, p.weights/gib),
		fmt.Sprintf("KV Cache is allocated. #tokens: %d, mem_fraction_static=%g", max(int(p.kv/p.kvPerToken), 0), s.memFrac),
	}
}

func (sglangRules) initFailed() []string {
	return []string{"Initialization failed. Please see the error messages above."}
}

// sglangAutoFraction is SGLang's mem_fraction_static when unset (§2.2).
func sglangAutoFraction(s *setup) float64 {
	gpuMiB := s.gpu.MemGiB * 1024
	reserved := 512 + 1.5*float64(max(s.chunk, 2048)) + 2*float64(s.graphBS) + float64(s.tp)/8*1024
	if s.dpAttn {
		reserved += 3 * float64(s.graphBS*s.dp)
		if s.graphBS > 300 {
			reserved += 1.5 * float64(s.graphBS*s.dp)
		}
	}
	if gpuMiB > 60*1024 {
		reserved = max(reserved, 10*1024)
	}
	if s.spec.on && s.spec.algo != "NGRAM" {
		reserved += 4 * 1024
	}
	f := (gpuMiB - reserved) / gpuMiB
	return float64(int(f*1000+0.5)) / 1000
}
