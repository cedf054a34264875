package engines

import (
	"slices"
	"strings"

	"github.com/servetune/servetune/space"
)

// The knobs of a disaggregated prefill/decode (PD) deployment. A config
// with disaggregation = "pd" is served by PrefillInstances prefill
// servers and DecodeInstances decode servers behind one router; each
// side's parallelism and per-side settings are its own knobs, named
// after the aggregated knob they replace with a "prefill_"/"decode_"
// prefix (prefill_tp is tp on the prefill side).
const (
	// KnobDisaggregation is "none" (one aggregated server, the default)
	// or "pd".
	KnobDisaggregation = "disaggregation"
	// KnobPrefillInstances and KnobDecodeInstances count the servers of
	// each side (≥ 1).
	KnobPrefillInstances = "prefill_instances"
	KnobDecodeInstances  = "decode_instances"
	// KnobKVTransferBackend is how KV moves from prefill to decode:
	// "nixl", "mooncake" (SGLang) or "lmcache" (vLLM), rendered per
	// engine version.
	KnobKVTransferBackend = "kv_transfer_backend"

	// Disaggregated is KnobDisaggregation's value for a PD deployment.
	Disaggregated = "pd"
)

// Roles of the processes of a PD deployment.
const (
	RolePrefill = "prefill"
	RoleDecode  = "decode"
	RoleRouter  = "router"
)

// sideKnobs are the aggregated knobs a side may set for itself: the
// parallelism of each side, chunked prefill and the memory fraction (the
// prefill side's settings), max running and CUDA graphs (the decode
// side's). Either side may set any of them; an unset one falls back on
// the aggregated knob.
func sideKnobs() []string {
	return []string{KnobTP, KnobDP, KnobEP, KnobEnableDPAttention, KnobChunkedPrefill,
		KnobMemFraction, KnobMaxRunning, KnobCUDAGraphMaxBS, KnobDisableCUDAGraph}
}

// pdKnobs lists the knobs of the PD layer: the engines that serve
// disaggregated (vLLM, SGLang) add them to their own.
func pdKnobs() []string {
	return append([]string{KnobDisaggregation, KnobPrefillInstances, KnobDecodeInstances,
		KnobKVTransferBackend}, sideKnobNames()...)
}

// sideKnob is the knob that sets k on one side: sideKnob(RolePrefill,
// KnobTP) is "prefill_tp".
func sideKnob(role, k string) string { return role + "_" + k }

// sideKnobNames lists every per-side knob name (prefill_tp, decode_tp,
// …), for the space's vocabulary.
func sideKnobNames() []string {
	var out []string
	for _, role := range []string{RolePrefill, RoleDecode} {
		for _, k := range sideKnobs() {
			out = append(out, sideKnob(role, k))
		}
	}
	return out
}

// PD is a disaggregated deployment read from a config: each side's
// server config (an aggregated config an adapter renders as usual, plus
// its role flags) and how many servers each side runs.
type PD struct {
	Prefill, Decode           space.Config
	PrefillCount, DecodeCount int
	// Backend is the KV transfer backend ("" when the config leaves it
	// to the engine).
	Backend string
}

// IsPD reports whether the config is a disaggregated deployment.
func IsPD(cfg space.Config) bool { return cfg.String(KnobDisaggregation) == Disaggregated }

// SplitPD reads a PD config into its two sides; ok is false for an
// aggregated config. Each side's config keeps the shared knobs (engine,
// model variant, kv_cache_dtype, …), takes its own prefill_*/decode_*
// values in place of the aggregated ones, and drops the PD knobs and the
// other side's.
func SplitPD(cfg space.Config) (PD, bool) {
	if !IsPD(cfg) {
		return PD{}, false
	}
	return PD{
		Prefill:      side(cfg, RolePrefill),
		Decode:       side(cfg, RoleDecode),
		PrefillCount: knobInt(cfg, KnobPrefillInstances),
		DecodeCount:  knobInt(cfg, KnobDecodeInstances),
		Backend:      strings.TrimSpace(nonDefault(cfg, KnobKVTransferBackend)),
	}, true
}

// PDPair is the one-prefill, one-decode deployment both of whose sides
// are the server config cfg: how a server that knows only its own side's
// flags pictures itself and its peer (the simulated engine's KV transfer
// time).
func PDPair(cfg space.Config) space.Config {
	pd := space.Config{}
	for k, v := range cfg {
		pd[k] = v
	}
	pd[KnobDisaggregation] = Disaggregated
	pd[KnobPrefillInstances], pd[KnobDecodeInstances] = int64(1), int64(1)
	for _, k := range sideKnobs() {
		if v, ok := cfg[k]; ok {
			pd[sideKnob(RolePrefill, k)], pd[sideKnob(RoleDecode, k)] = v, v
		}
	}
	return pd
}

// side is one side's server config.
func side(cfg space.Config, role string) space.Config {
	out := space.Config{}
	for k, v := range cfg {
		if !pdKnob(k) {
			out[k] = v
		}
	}
	prefix := role + "_"
	for k, v := range cfg {
		if base, ok := strings.CutPrefix(k, prefix); ok && slices.Contains(sideKnobs(), base) {
			out[base] = v
		}
	}
	return out
}

// pdKnob reports whether k belongs to the PD layer rather than to one
// server: the PD knobs themselves and every per-side knob.
func pdKnob(k string) bool {
	switch k {
	case KnobDisaggregation, KnobPrefillInstances, KnobDecodeInstances, KnobKVTransferBackend:
		return true
	}
	return strings.HasPrefix(k, RolePrefill+"_") || strings.HasPrefix(k, RoleDecode+"_")
}

// nonDefault is the knob's text, or "" when absent or "default".
func nonDefault(cfg space.Config, k string) string {
	if !cfg.Has(k) {
		return ""
	}
	return cfg.String(k)
}

// pdGPUs is the GPU count of a PD deployment: every server of both
// sides, each counted by its engine's own rule (the router holds none).
func pdGPUs(p PD, e Engine) int {
	return p.PrefillCount*e.GPUs(p.Prefill) + p.DecodeCount*e.GPUs(p.Decode)
}
