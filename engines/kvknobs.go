package engines

import (
	"fmt"
	"math"
	"strconv"
)

// The context-length and KV-offload knobs, rendered and parsed for each
// engine that has them.

// vllmOffload is the first release with --kv-offloading-size and
// --kv-offloading-backend (PR #27621, merged 2025-10-28, after the 0.11.0
// cut). The backend defaults to native only from 0.15 (PR #32421,
// 2026-01-15), so servetune always passes it.
var vllmOffload = vllm0111

// vllm014Auto: --max-model-len accepts -1/auto from 0.14 (PR #29431,
// 2025-12-23; engines.md §1.1).
var vllm014Auto = vllm014

func vllmKV(r *renderer, v Version) {
	if n, ok := r.int(KnobMaxModelLen); ok {
		switch {
		case n == -1 && v.AtLeast(vllm014Auto):
			r.flag("--max-model-len", "auto")
		case n == -1:
			r.fail(KnobMaxModelLen, "does not accept -1: vllm %s has no --max-model-len auto (added in 0.14.0); give a length", v)
		case n <= 0:
			r.fail(KnobMaxModelLen, "want a positive length or -1 (auto), got %d", n)
		default:
			r.flag("--max-model-len", strconv.FormatInt(n, 10))
		}
	}
	gb, ok := offloadGB(r)
	if !ok {
		return
	}
	if !v.AtLeast(vllmOffload) {
		r.fail(KnobKVOffloadGB, "vllm %s has no --kv-offloading-size (added in 0.11.1; before it, pass an OffloadingConnector in --kv-transfer-config through extra_args)", v)
		return
	}
	r.flag("--kv-offloading-size", formatGB(gb))
	r.flag("--kv-offloading-backend", "native")
}

// sglangKV: --context-length, and the hierarchical cache with a host pool
// per TP rank (--hicache-size, in GB, an int; every release servetune
// renders, 0.5.x, has both).
func sglangKV(r *renderer) {
	if n, ok := r.int(KnobMaxModelLen); ok {
		if n <= 0 {
			r.fail(KnobMaxModelLen, "does not accept %d: sglang's --context-length wants a positive length (-1, auto, is vLLM's)", n)
		} else {
			r.flag("--context-length", strconv.FormatInt(n, 10))
		}
	}
	gb, ok := offloadGB(r)
	if !ok {
		return
	}
	if on, set := r.cfg.Bool(KnobPrefixCaching); set && r.has(KnobPrefixCaching) && !on {
		r.fail(KnobKVOffloadGB, "sglang's hierarchical cache extends the radix cache: --enable-hierarchical-cache and --disable-radix-cache are mutually exclusive (set prefix_caching = true)")
		return
	}
	tp, _ := r.cfg.Int(KnobTP)
	r.bare("--enable-hierarchical-cache")
	r.flag("--hicache-size", strconv.FormatInt(int64(math.Ceil(gb/float64(max(tp, 1)))), 10))
}

func trtllmKV(r *renderer) {
	if n, ok := r.int(KnobMaxModelLen); ok {
		if n <= 0 {
			r.fail(KnobMaxModelLen, "does not accept %d: trtllm's --max_seq_len wants a positive length (-1, auto, is vLLM's)", n)
		} else {
			r.flag("--max_seq_len", strconv.FormatInt(n, 10))
		}
	}
}

// offloadGB is kv_offload_gb when set and positive (0 renders nothing:
// no offload, every engine's default).
func offloadGB(r *renderer) (float64, bool) {
	gb, ok := r.float(KnobKVOffloadGB)
	switch {
	case !ok:
		return 0, false
	case gb < 0 || math.IsInf(gb, 0) || math.IsNaN(gb):
		r.fail(KnobKVOffloadGB, "want GiB ≥ 0, got %v", gb)
		return 0, false
	}
	return gb, gb > 0
}

func formatGB(gb float64) string { return strconv.FormatFloat(gb, 'g', -1, 64) }

// vllmKVDefs and the others parse the flags back; SGLang's per-rank
// --hicache-size is multiplied by tp once all flags are read
// (sglangHiCacheTotal).
func vllmKVDefs() []flagDef {
	return []flagDef{
		{names: []string{"--max-model-len"}, value: true, set: func(p *parser, v string) error {
			if v == "auto" || v == "-1" {
				p.out.Config[KnobMaxModelLen] = int64(-1)
				return nil
			}
			n, err := HumanInt(v)
			if err != nil {
				return fmt.Errorf("knob %s: %w", KnobMaxModelLen, err)
			}
			p.out.Config[KnobMaxModelLen] = int64(n)
			return nil
		}},
		{names: []string{"--kv-offloading-size"}, value: true, set: setFloat(KnobKVOffloadGB)},
		{names: []string{"--kv-offloading-backend"}, value: true, set: func(_ *parser, v string) error {
			if v != "native" {
				return fmt.Errorf("servetune models the native backend only, not %q", v)
			}
			return nil
		}},
	}
}

func sglangKVDefs() []flagDef {
	return []flagDef{
		{names: []string{"--context-length"}, value: true, set: setInt(KnobMaxModelLen)},
		{names: []string{"--enable-hierarchical-cache"}, set: func(*parser, string) error { return nil }},
		{names: []string{"--hicache-size"}, value: true, set: setFloat(KnobKVOffloadGB)},
	}
}

// sglangHiCacheTotal turns the per-rank --hicache-size into the
// instance's total.
func sglangHiCacheTotal(out Parsed) {
	gb, ok := out.Config.Float(KnobKVOffloadGB)
	if !ok || !out.Config.Has(KnobKVOffloadGB) {
		return
	}
	tp, _ := out.Config.Int(KnobTP)
	out.Config[KnobKVOffloadGB] = gb * float64(max(tp, 1))
}

func trtllmKVDefs() []flagDef {
	return []flagDef{{names: []string{"--max_seq_len"}, value: true, set: setInt(KnobMaxModelLen)}}
}

// HumanInt reads vLLM's human-readable ints (--max-model-len,
// --max-num-batched-tokens): 1k = 1000, 1K = 1024, 25.6k, 1m/1M, 1g/1G.
func HumanInt(v string) (int, error) {
	mult := 1.0
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'k':
			mult = 1e3
		case 'K':
			mult = 1 << 10
		case 'm':
			mult = 1e6
		case 'M':
			mult = 1 << 20
		case 'g':
			mult = 1e9
		case 'G':
			mult = 1 << 30
		}
		if mult != 1 {
			v = v[:n-1]
		}
	}
	if i, err := strconv.Atoi(v); err == nil && mult == 1 {
		return i, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || mult == 1 || math.IsNaN(f) || math.Abs(f*mult) > 1<<40 {
		return 0, fmt.Errorf("invalid human-readable integer %q", v)
	}
	return int(f * mult), nil
}
