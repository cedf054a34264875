package engines

import (
	"maps"
	"slices"

	"github.com/servetune/servetune/space"
)

// Device is what an engine runs on when the target names no GPU.
type Device string

// The devices an engine can run on.
const (
	GPU Device = "gpu"
	CPU Device = "cpu"
)

// The built-in engines' names, as space files and targets spell them.
const (
	VLLM   = "vllm"
	SGLang = "sglang"
	TRTLLM = "trtllm" // TensorRT-LLM
	Ollama = "ollama"
)

// all builds the registry of built-in engines explicitly, newest engines
// last, so adding one is one line and no init() order matters. Each
// engine's file (vllm.go, sglang.go, trtllm.go, ollama.go; declared.go for
// engines declared in TOML) answers its flags, port, image, health path,
// device, version command and GPU count.
func all() []Engine { return []Engine{vllm{}, sglang{}, trtllm{}, ollama{}} }

// Names lists the built-in engines, in a stable order.
func Names() []string {
	var ns []string
	for _, e := range all() {
		ns = append(ns, e.Name())
	}
	return ns
}

// names lists every engine a target can run: the built-ins, then its
// declared ones.
func names(t space.Target) []string {
	return append(Names(), slices.Sorted(maps.Keys(t.Declared))...)
}

// Lookup is the one lookup of an engine by name: the target's declared
// engines first, then the built-ins (a zero Target knows only those).
func Lookup(name string, t space.Target) (Engine, bool) {
	if d, ok := t.Declared[name]; ok {
		return newDeclared(name, d), true
	}
	for _, e := range all() {
		if e.Name() == name {
			return e, true
		}
	}
	return nil, false
}

// Supports reports whether the built-in engine understands the knob; space
// validation uses it to reject a knob the chosen engine would ignore
// (a declared engine's knobs are checked by space against its declaration).
func Supports(engine, knob string) bool {
	e, ok := Lookup(engine, space.Target{})
	if !ok {
		return false
	}
	return commonKnob(knob) || slices.Contains(e.Knobs(), knob)
}

// GPUs is how many GPUs a config occupies: the target's gpus_per_trial
// where it applies, else its engine's own rule (tp×dp replicas, except
// where an engine carves data parallelism inside the TP group or has none).
// Used to pack trials, charge GPU time and by the simulator.
func GPUs(cfg space.Config, t space.Target) int {
	e, ok := Lookup(EngineOf(cfg, t), t)
	if !ok {
		if n, ok := t.TrialGPUs(cfg); ok {
			return n
		}
		return replicas(cfg)
	}
	p, isPD := SplitPD(cfg)
	if !isPD {
		return trialGPUs(cfg, t, e, nil)
	}
	return trialGPUs(cfg, t, e, &p)
}

// trialGPUs is GPUs on the engine already looked up and the split (nil
// for one server) already read.
func trialGPUs(cfg space.Config, t space.Target, e Engine, p *PD) int {
	if n, ok := t.TrialGPUs(cfg); ok {
		return n
	}
	if p != nil {
		return pdGPUs(*p, e)
	}
	return e.GPUs(cfg)
}

// replicas is tp×dp, the GPU count of most engines.
func replicas(cfg space.Config) int { return knobInt(cfg, KnobTP) * knobInt(cfg, KnobDP) }

func knobInt(cfg space.Config, k string) int {
	if !cfg.Has(k) {
		return 1
	}
	if n, ok := cfg.Int(k); ok && n > 0 {
		return int(n)
	}
	return 1
}

// or is s, else def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
