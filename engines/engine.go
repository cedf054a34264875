package engines

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/servetune/servetune/space"
)

// Engine is one serving engine's adapter: pure knob ↔ flag translation plus
// what the launcher must know to start and probe it; registry.go lists
// them (engines/launch starts them).
type Engine interface {
	Name() string
	// Knobs lists the knobs the engine understands besides engine and
	// model_variant.
	Knobs() []string
	// Render builds the serving command for cfg on engine version v,
	// serving checkpoint model.
	Render(cfg space.Config, v Version, model string) (Command, error)
	// Listen returns the flags that bind the server to host:port and serve
	// checkpoint model under the name served, and the name clients must
	// send (model, when the engine cannot rename it).
	Listen(host string, port int, model, served string) (args []string, name string)
	// Probes are the HTTP paths that must all answer 200 before the engine
	// counts as ready, in order.
	Probes() []string
	// patterns are log patterns that classify this engine's failures,
	// checked before the patterns common to all engines.
	patterns() []pattern

	// What the world outside the command line knows of the engine, so
	// nothing outside this package switches on its name:

	// DefaultPort is where the engine serves when not told (0: it has no
	// default of its own).
	DefaultPort() int
	// Health is the path that answers 200 once the engine serves ("" when
	// readiness is not a plain GET).
	Health() string
	// Image is the engine's official container image at version ("" =
	// latest), "" when it has none.
	Image(version string) string
	// Device is what the engine runs on when the target names no GPU.
	Device() Device
	// VersionCommand prints the engine's version; program, when not "",
	// is the target's override of the engine's program.
	VersionCommand(program string) []string
	// GPUs is how many GPUs cfg occupies on this engine, before the
	// target's gpus_per_trial (see GPUs).
	GPUs(cfg space.Config) int
	// Deployment is what running the engine outside servetune (in a
	// container) needs beyond its command.
	Deployment() Deployment
}

// Parser is an adapter that reads its engine's command line back into
// knobs, the inverse of Render over the same table: a capability, since
// an engine whose knobs live elsewhere (a declared engine's flags are its
// own business) has nothing to read. ParseArgs checks for it.
type Parser interface {
	// Parse reads engine arguments (program words optional) back into
	// knobs.
	Parse(args []string, v Version) (Parsed, error)
}

// Deployment is what a container of the engine needs beyond its serving
// command (studies/export).
type Deployment struct {
	// Cache is where the image keeps downloaded checkpoints.
	Cache string
	// HFToken: the engine downloads from Hugging Face and reads HF_TOKEN.
	HFToken bool
	// BindEnv is the variable the engine binds host:port from instead of
	// flags ("" when flags do).
	BindEnv string
	// Load bounds the time from start to the first healthy answer:
	// download, weights, compilation and CUDA-graph capture of a large
	// checkpoint take tens of minutes.
	Load time.Duration
}

// hfDeployment is an engine that downloads checkpoints from Hugging Face
// into the image's default cache.
func hfDeployment() Deployment {
	return Deployment{Cache: "/root/.cache/huggingface", HFToken: true, Load: time.Hour}
}

// Parsed is what Parse recovers from an engine's arguments.
type Parsed struct {
	Config space.Config
	// Model is the checkpoint argument (vLLM/TRT-LLM positional,
	// SGLang --model-path).
	Model      string
	Host       string
	Port       int
	ServedName string
	// Extra holds arguments outside the knob table, in order; Parse
	// returns an error when any is present, ParseArgs keeps them.
	Extra []string
}

// Render returns the exact serving command of cfg's engine (cfg["engine"],
// else t.Engine) at the version the target declares, without the target's
// launch prefix, program override or environment: the command a report
// recommends. ExtraArgs of the target are appended because they change
// what is measured. A knob the engine does not support (unless "default")
// or a value it cannot take is an *Failure of class InvalidConfig.
func Render(cfg space.Config, t space.Target) (Command, error) {
	e, err := lookupEngine(EngineOf(cfg, t), t)
	if err != nil {
		return Command{}, err
	}
	return render(e, cfg, t)
}

// render is Render on the engine already looked up.
func render(e Engine, cfg space.Config, t space.Target) (Command, error) {
	name := e.Name()
	v, err := ParseVersion(t.Engines[name].Version)
	if err != nil {
		return Command{}, invalid("%s: %v", name, err)
	}
	if err := checkKnobs(e, cfg); err != nil {
		return Command{}, err
	}
	model, err := ModelPath(cfg, t)
	if err != nil {
		return Command{}, err
	}
	c, err := e.Render(cfg, v, model)
	if err != nil {
		return Command{}, err
	}
	c.Argv = append(c.Argv, t.Engines[name].ExtraArgs...)
	return c, nil
}

// ParseArgs is the engine's Parse (a Parser) that keeps unknown arguments
// in Parsed.Extra and returns model, host and port too; the simulator and
// the fake engines use it to accept a real engine's command line. An
// engine that is no Parser is an InvalidConfig refusal.
func ParseArgs(engine string, args []string, v Version) (Parsed, error) {
	e, ok := Lookup(engine, space.Target{})
	if !ok {
		return Parsed{}, invalid("unknown engine %q (known: %s)", engine, strings.Join(Names(), ", "))
	}
	pr, ok := e.(Parser)
	if !ok {
		return Parsed{}, invalid("%s: its command lines are not parsed back into knobs", engine)
	}
	p, err := pr.Parse(args, v)
	if err != nil {
		return Parsed{}, err
	}
	p.Config[KnobEngine] = engine
	return p, nil
}

// EngineOf is the engine a config targets: its engine knob, else the
// target's engine.
func EngineOf(cfg space.Config, t space.Target) string {
	if cfg.Has(KnobEngine) {
		return cfg.Engine()
	}
	return t.Engine
}

// ModelPath is the checkpoint to serve. model_variant picks a sibling
// checkpoint named like Hugging Face quantized releases: target model
// "Qwen/Qwen3-8B" with variant "FP8" serves "Qwen/Qwen3-8B-FP8". A variant
// containing "/" is a full checkpoint path; "BF16", "base" or "default"
// keep the target model; a target model already ending in -VARIANT is kept.
func ModelPath(cfg space.Config, t space.Target) (string, error) {
	if t.Model == "" {
		return "", invalid("target has no model")
	}
	if !cfg.Has(KnobModelVariant) {
		return t.Model, nil
	}
	v := cfg.String(KnobModelVariant)
	switch {
	case strings.Contains(v, "/"):
		return v, nil
	case strings.EqualFold(v, "bf16"), strings.EqualFold(v, "base"), v == "":
		return t.Model, nil
	case strings.HasSuffix(strings.ToLower(t.Model), "-"+strings.ToLower(v)):
		return t.Model, nil
	}
	return t.Model + "-" + v, nil
}

func checkKnobs(e Engine, cfg space.Config) error {
	if IsPD(cfg) {
		// A PD config is several servers and a router: one command
		// cannot serve it.
		return invalid("a disaggregated (disaggregation = %q) config is several servers and a router: RenderPD renders each", Disaggregated)
	}
	var errs []error
	for _, k := range cfg.Keys() {
		if cfg.Has(k) && !commonKnob(k) && !slices.Contains(e.Knobs(), k) {
			errs = append(errs, fmt.Errorf("%s does not support knob %q (value %s)", e.Name(), k, cfg.String(k)))
		}
	}
	if len(errs) > 0 {
		return &Failure{Class: InvalidConfig, Message: errors.Join(errs...).Error()}
	}
	return nil
}

func invalid(format string, a ...any) error {
	return &Failure{Class: InvalidConfig, Message: fmt.Sprintf(format, a...)}
}

// sortedKeys is for deterministic messages.
