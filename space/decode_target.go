package space

import (
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/servetune/servetune/internal/suggest"
)

var targetKeys = []string{"runner", "model", "served_model_name", "gpu", "gpus", "gpus_per_trial", "engine", "host", "prefix", "env",
	"startup_timeout", "stall_timeout", "trial_timeout", "max_failed_fraction", "engines", "sim",
	"nodes", "node_launch", "gpus_per_node", "prices", "traffic_rps", "node_selector", "simulated_gpus"}

func (d *decoder) target(m map[string]any) Target {
	t := Target{
		Runner:            d.str(m, "runner", "target", "sim"),
		Model:             d.str(m, "model", "target", ""),
		ServedModelName:   d.str(m, "served_model_name", "target", ""),
		GPU:               d.str(m, "gpu", "target", ""),
		GPUs:              int(d.integer(m, "gpus", "target", 1)),
		GPUsPerTrial:      d.gpusPerTrial(m),
		Engine:            d.str(m, "engine", "target", ""),
		Host:              d.str(m, "host", "target", "127.0.0.1"),
		Prefix:            d.argv(m, "prefix", "target"),
		Env:               d.strMap(m, "env", "target"),
		StartupTimeout:    d.duration(m, "startup_timeout", "target"),
		StallTimeout:      d.positiveDuration(m, "stall_timeout", DefaultStallTimeout),
		TrialTimeout:      d.duration(m, "trial_timeout", "target"),
		MaxFailedFraction: d.fraction(m, "max_failed_fraction", DefaultMaxFailedFraction),
	}
	if t.Runner != "sim" && t.Runner != "process" {
		d.fail("target.runner", "must be \"sim\" or \"process\", got %q", t.Runner)
	}
	if t.Model == "" {
		d.fail("target.model", "is required")
	}
	if t.GPUs <= 0 {
		d.fail("target.gpus", "must be a positive integer, got %d%s", t.GPUs, cpuHint(t.GPUs))
	}
	d.boundTarget(m, t)
	if t.Engine != "" && d.opt.Engines != nil && !slices.Contains(d.opt.Engines, t.Engine) {
		d.fail("target.engine", "unknown engine %q%s (known: %s)", t.Engine, suggest.Hint(t.Engine, d.opt.Engines), strings.Join(d.opt.Engines, ", "))
	}
	d.nodes(m, &t)
	t.Engines = d.engineTargets(d.table(m, "engines", "target.engines"))
	t.Sim = d.simTarget(d.table(m, "sim", "target.sim", "noise_cv", "cards"))
	t.Prices, t.PriceList = d.prices(m)
	t.TrafficRPS = d.trafficRPS(m)
	t.NodeSelector = d.nodeSelectors(m)
	t.SimulatedGPUs = d.strings(m, "simulated_gpus", "target")
	if d.opt.CheckTarget != nil && t.Model != "" {
		// Held back until the end: a target the runner cannot run does not
		// stop the checks of the rest of the file.
		d.later = append(d.later, d.opt.CheckTarget(t)...)
	}
	return t
}

// versionRE is what the adapters read as a release: digits first (after
// an optional v), or "latest".
var versionRE = regexp.MustCompile(`^\s*v?(latest|[0-9])`)

func (d *decoder) engineTargets(engines map[string]any) map[string]EngineTarget {
	var out map[string]EngineTarget
	for _, name := range slices.Sorted(maps.Keys(engines)) {
		path := "target.engines." + name
		if d.opt.Engines != nil && !slices.Contains(d.opt.Engines, name) {
			d.fail(path, "unknown engine %q%s (known: %s)", name, suggest.Hint(name, d.opt.Engines), strings.Join(d.opt.Engines, ", "))
			continue
		}
		em := d.table(engines, name, path, "command", "router", "version", "env", "extra_args")
		if out == nil {
			out = map[string]EngineTarget{}
		}
		out[name] = EngineTarget{
			Command:   d.argv(em, "command", path),
			Router:    d.argv(em, "router", path),
			Version:   d.str(em, "version", path, ""),
			Env:       d.strMap(em, "env", path),
			ExtraArgs: d.strings(em, "extra_args", path),
		}
		if v := out[name].Version; v != "" && !versionRE.MatchString(v) {
			d.fail(join(path, "version"), "must be a release such as \"0.15.1\" (or \"latest\"), got %q", v)
		}
		for _, a := range out[name].ExtraArgs {
			if strings.TrimSpace(a) == "" {
				d.fail(join(path, "extra_args"), "holds an empty argument; the engine would get an empty word on its command line")
				break
			}
		}
	}
	return out
}

func (d *decoder) simTarget(sim map[string]any) SimTarget {
	var st SimTarget
	if cv, ok := d.number(sim, "noise_cv", "target.sim"); ok {
		if cv < 0 || cv > 1 {
			d.fail("target.sim.noise_cv", "must be between 0 and 1, got %v", cv)
		}
		st.NoiseCV = cv
	}
	if p, given := sim["cards"].(string); given && strings.TrimSpace(p) == "" {
		d.fail("target.sim.cards", "is empty: name a cards file, or leave cards out for the built-in ones")
	}
	if p := d.str(sim, "cards", "target.sim", ""); p != "" {
		// Relative to the space file, so a study runs from any directory.
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(d.file), p)
		}
		st.Cards = p
	}
	return st
}

// positiveDuration reads a [target] duration that must be above zero when
// given; def applies when it is absent.
func (d *decoder) positiveDuration(m map[string]any, key string, def time.Duration) time.Duration {
	if _, ok := m[key]; !ok {
		return def
	}
	t := d.duration(m, key, "target")
	if t == 0 {
		d.fail("target."+key, "must be a positive duration like \"2m\", got %s", FormatValue(m[key]))
	}
	return t
}

// fraction reads a [target] fraction in [0, 1); def applies when absent.
func (d *decoder) fraction(m map[string]any, key string, def float64) float64 {
	if _, ok := m[key]; !ok {
		return def
	}
	f, ok := d.number(m, key, "target")
	if ok && (f < 0 || f >= 1) {
		d.fail("target."+key, "must be at least 0 and below 1, got %v", f)
	}
	return f
}

// sampler asks the injected check whether the sampler suits the study.
func (d *decoder) sampler(name string, objectives int) {
	if d.opt.Sampler == nil {
		return
	}
	if err := d.opt.Sampler(name, objectives); err != nil {
		d.fail("study.sampler", "%v", err)
	}
}

func (d *decoder) strMap(m map[string]any, key, path string) map[string]string {
	tm := d.table(m, key, join(path, key))
	if len(tm) == 0 {
		return nil
	}
	out := make(map[string]string, len(tm))
	for _, k := range slices.Sorted(maps.Keys(tm)) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			// The process environment is NAME=value: such a name would set
			// another variable than the one written.
			d.fail(join(join(path, key), k), "is not a variable name: an environment variable's name cannot be empty or contain '=' (got %q)", k)
			continue
		}
		out[k] = d.str(tm, k, join(path, key), "")
	}
	return out
}

// argv reads a program's argv (a command, a prefix): an array of strings
// whose first, the program, is not empty.
func (d *decoder) argv(m map[string]any, key, path string) []string {
	out := d.strings(m, key, path)
	if arr, given := m[key].([]any); given && len(arr) == 0 {
		// [] reads as absent (no prefix, the engine's own program): the
		// file says something else was meant.
		d.fail(join(path, key), "is empty: give the program and its arguments, or leave %s out", key)
		return nil
	}
	if len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		d.fail(join(path, key), "must start with a program to run, got %q", out)
		return nil
	}
	return out
}

// cpuHint says how to declare a CPU-only target to whoever wrote gpus = 0
// for one: the count stays (trials are packed one per slot), the device
// comes from the engine or the target.
func cpuHint(gpus int) string {
	if gpus != 0 {
		return ""
	}
	return `; a CPU-only target keeps gpus at its default and says where it runs: gpu = "cpu", or device = "cpu" in a declared engine (an engine that runs on the CPU, like ollama, needs neither)`
}
