package sim

import (
	"cmp"
	"fmt"
)

// Launch holds engine arguments that change what is simulated but are
// not search knobs: a real command line (sim serve) may carry them.
type Launch struct {
	// MaxModelLen is vLLM's --max-model-len, SGLang's --context-length,
	// TRT-LLM's --max_seq_len: the longest request the engine plans KV
	// for. 0 keeps the card's context; < 0 is vLLM's "auto" (the longest
	// that fits in the KV cache).
	MaxModelLen int
	// ThroughputMode is vLLM's --performance-mode throughput: it doubles
	// max_num_seqs and max_num_batched_tokens where the user left them
	// at their defaults.
	ThroughputMode bool
}

// apply adjusts a resolved setup; explicit is whether the config set
// max_running and chunked_prefill.
func (l Launch) apply(s *setup, runningSet, chunkSet bool) error {
	limit := cmp.Or(s.ctxLimit, s.model.MaxContext)
	switch {
	case l.MaxModelLen > limit && limit > 0:
		msg := fmt.Sprintf("User-specified max_model_len (%d) is greater than the derived max_model_len (max_position_embeddings=%d in model's config.json).", l.MaxModelLen, limit)
		return invalid(msg, "ValueError: "+msg)
	case l.MaxModelLen > 0:
		s.model.MaxContext = l.MaxModelLen
	case l.MaxModelLen < 0:
		s.autoLen = true
	}
	if l.ThroughputMode && s.eng.throughputMode {
		if !runningSet {
			s.maxRunning *= 2
		}
		if !chunkSet && s.chunk > 0 {
			s.chunk *= 2
		}
	}
	return nil
}
