package engines

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/servetune/servetune/space"
)

// declared is the adapter of an engine described in TOML (space.EngineDecl)
// rather than in code: the same lifecycle as a built-in engine, with argv,
// readiness and failure messages taken from the declaration. It is no
// Parser: its flags are its own business, and nothing imitates a
// declared engine from its command line.
type declared struct {
	name string
	d    space.EngineDecl
	pats []pattern
}

// newDeclared compiles the declaration's patterns; space validated them.
func newDeclared(name string, d space.EngineDecl) declared {
	e := declared{name: name, d: d}
	for _, f := range d.Failures {
		re, err := regexp.Compile(f.Pattern)
		if err != nil {
			continue // space refuses such a file; a hand-built target skips it
		}
		why := f.Why
		if why == "" {
			why = "matched " + f.Pattern
		}
		e.pats = append(e.pats, pattern{Class: Class(f.Class), Re: re, Why: why, Quote: f.Why == ""})
	}
	return e
}

func (e declared) Name() string { return e.name }

func (e declared) Knobs() []string { return slices.Sorted(maps.Keys(e.d.Knobs)) }

// DefaultPort is the declaration's default_port (0 when it declares none).
func (e declared) DefaultPort() int { return e.d.DefaultPort }

// Health is the declared readiness path when it is a plain GET.
func (e declared) Health() string { return first(e.Probes()) }

// Image: a declared engine has no official image.
func (declared) Image(string) string { return "" }

// Deployment: checkpoints from Hugging Face into the image's cache.
func (declared) Deployment() Deployment { return hfDeployment() }

// Device is the declaration's device: a CPU-only program needs no GPU.
func (e declared) Device() Device {
	if e.d.Device == "cpu" {
		return CPU
	}
	return GPU
}

// VersionCommand is the declaration's version_command, as declared.
func (e declared) VersionCommand(string) []string { return e.d.VersionCommand }

// GPUs: tp×dp replicas, as for most engines.
func (declared) GPUs(cfg space.Config) int { return replicas(cfg) }

// Render writes command, model (when positional or a flag), the knobs in
// name order, then the fixed args. A knob set to "default" renders nothing.
func (e declared) Render(cfg space.Config, _ Version, model string) (Command, error) {
	r := newRenderer(e.name, cfg, e.d.Command...)
	for k, v := range e.d.Env {
		r.env[k] = v
	}
	r.args = append(r.args, e.pass(e.d.Model, model, r.env)...)
	for _, k := range e.Knobs() {
		if cfg.Has(k) {
			e.knob(r, k, e.d.Knobs[k])
		}
	}
	r.args = append(r.args, e.d.Args...)
	return r.command(len(e.d.Command))
}

// knob renders one knob's value as a flag or an environment variable.
func (e declared) knob(r *renderer, k string, kd space.KnobDecl) {
	words, ok := e.value(r, k, kd)
	if !ok {
		return
	}
	if kd.Env != "" {
		r.env[kd.Env] = words[0] // value always renders one word for a variable
		return
	}
	r.args = append(r.args, e.flag(kd.Flag, words)...)
}

// value is the knob's rendered value: no word for a boolean that renders
// as the bare flag, ok=false when nothing renders at all.
func (e declared) value(r *renderer, k string, kd space.KnobDecl) ([]string, bool) {
	v := r.cfg[k]
	if s, isStr := v.(string); isStr && s == space.Default {
		return nil, false // the engine's own default: pass nothing
	}
	if b, isBool := v.(bool); isBool && !kd.JSON && kd.Bool != "value" && kd.Flag != "" {
		return nil, b == (kd.Bool != "absent")
	}
	if kd.JSON {
		j, err := json.Marshal(v)
		if err != nil {
			r.fail(k, "cannot render %v as JSON: %v", v, err)
			return nil, false
		}
		return []string{string(j)}, true
	}
	return []string{space.FormatValue(v)}, true
}

// flag spells a flag with its value words in the declared style.
func (e declared) flag(name string, words []string) []string {
	switch {
	case len(words) == 0:
		return []string{name}
	case e.d.FlagStyle == "equals":
		return []string{name + "=" + words[0]}
	}
	return append([]string{name}, words...)
}

// pass returns the argv words passing value per p; an env pass goes to env.
func (e declared) pass(p space.Pass, value string, env map[string]string) []string {
	switch {
	case p.Positional:
		return []string{value}
	case p.Flag != "":
		return e.flag(p.Flag, []string{value})
	case p.Env != "":
		env[p.Env] = value
	}
	return nil
}

// Listen passes host, port and served name as declared. The name clients
// send is the served name when the engine takes one, else the model.
func (e declared) Listen(host string, port int, model, served string) ([]string, string) {
	args, _ := e.listen(host, port, served)
	if e.d.ServedName.None() {
		return args, model
	}
	return args, served
}

// listen is Listen's argv and environment.
func (e declared) listen(host string, port int, served string) ([]string, map[string]string) {
	env := map[string]string{}
	var args []string
	args = append(args, e.pass(e.d.Host, host, env)...)
	args = append(args, e.pass(e.d.Port, strconv.Itoa(port), env)...)
	args = append(args, e.pass(e.d.ServedName, served, env)...)
	return args, env
}

// ListenEnv is the environment part of Listen (host, port or served name
// passed as variables).
func (e declared) ListenEnv(host string, port int, served string) map[string]string {
	_, env := e.listen(host, port, served)
	return env
}

// FixedPort is where an engine that takes no port listens; 0 lets the
// launcher choose.
func (e declared) FixedPort() int {
	if e.d.Port.None() {
		return e.d.DefaultPort
	}
	return 0
}

// Probes are the plain HTTP probes; a declaration with a status other
// than 200 or a JSON field is probed by ReadyProbe instead.
func (e declared) Probes() []string {
	if e.d.Ready.Path == "" || e.custom() {
		return nil
	}
	return []string{e.d.Ready.Path}
}

func (e declared) custom() bool {
	r := e.d.Ready
	return r.Log != "" || r.Field != "" || (r.Status != 0 && r.Status != 200)
}

func (e declared) patterns() []pattern { return e.pats }
