package engines

import "github.com/servetune/servetune/space"

// GPUs is how many GPUs a config occupies on its engine: tp×dp replicas,
// except where data parallelism is carved inside the TP group (SGLang DP
// attention) or absent (TensorRT-LLM); the target's gpus_per_trial
// overrides it where it applies. Used to pack trials and charge GPU time.
func GPUs(cfg space.Config, t space.Target) int {
	if n, ok := t.TrialGPUs(cfg); ok {
		return n
	}
	tp, dp := knobInt(cfg, KnobTP), knobInt(cfg, KnobDP)
	n := tp * dp
	switch EngineOf(cfg, t) {
	case "sglang":
		if on, _ := cfg.Bool(KnobEnableDPAttention); on && cfg.Has(KnobEnableDPAttention) {
			n = tp
		}
	case "trtllm":
		n = tp
	}
	return n
}

func knobInt(cfg space.Config, k string) int {
	if !cfg.Has(k) {
		return 1
	}
	if n, ok := cfg.Int(k); ok && n > 0 {
		return int(n)
	}
	return 1
}
