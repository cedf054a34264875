package engines

import (
	"slices"
	"strings"

	"github.com/servetune/servetune/space"
)

// fallbackPort is where a deployment serves when its engine names no
// port of its own and nothing else chooses one (a declared engine without
// default_port, exported to a container; the router of a disaggregated
// deployment of such an engine): the OpenAI-compatible servers' common
// 8000.
const fallbackPort = 8000

// Deployed is one config deployed on one target, resolved once: its
// adapter, how many servers it is (one, or a disaggregated deployment's
// prefill and decode servers and router), the GPUs it holds and the ports
// it serves on when nothing else picks them. Every caller that renders,
// launches, keys or exports a config starts from Deploy, so none decides
// "one server or several" itself.
type Deployed struct {
	// Name is the engine (the config's engine knob, else the target's);
	// Engine its adapter.
	Name   string
	Engine Engine
	// Config and Target are what was deployed.
	Config space.Config
	Target space.Target
	// Model is the checkpoint served (ModelPath).
	Model string
	// PD is the split of a disaggregated config; nil for one server.
	PD *PD
	// GPUs is what the whole deployment holds (GPUs).
	GPUs int
	// Command is one server's serving command (Render's); zero for a
	// disaggregated deployment.
	Command Command
	// Processes are a disaggregated deployment's processes on the
	// report ports (RenderPD with the zero PDPorts); nil for one server.
	Processes []PDProcess
	// Port is where clients reach the deployment when nothing else
	// picks the port (a report, a container): the engine's fixed port when
	// it takes none, else its default port, else fallbackPort; a
	// disaggregated deployment's router port.
	Port int
	// Health is the path that answers 200 once the deployment serves
	// (the adapter's Health); "" when readiness is not a plain GET (a
	// declared engine's status, JSON field or log line).
	Health string
}

// Deploy resolves cfg on t once: its adapter, PD split, GPU count,
// command or processes and default port. An error is Render's or
// RenderPD's refusal; the Deployed returned with it holds what was
// resolved before the refusal (its Name at least).
func Deploy(cfg space.Config, t space.Target) (Deployed, error) {
	d := Deployed{Name: EngineOf(cfg, t), Config: cfg, Target: t}
	e, err := lookupEngine(d.Name, t)
	if err != nil {
		return d, err
	}
	d.Engine, d.Health = e, e.Health()
	d.Model, _ = ModelPath(cfg, t)
	if p, ok := SplitPD(cfg); ok {
		d.PD = &p
		d.GPUs = trialGPUs(cfg, t, e, &p)
		d.Processes, err = renderPD(e, p, cfg, t, PDPorts{})
		if len(d.Processes) > 0 {
			d.Port = d.Processes[len(d.Processes)-1].Port
		}
		return d, err
	}
	d.GPUs = trialGPUs(cfg, t, e, nil)
	d.Port = servePort(e)
	d.Command, err = render(e, cfg, t)
	return d, err
}

// On renders a disaggregated deployment's processes on ports (free ports
// at launch, Service names in a manifest); for one server it is an
// InvalidConfig refusal, as RenderPD's.
func (d Deployed) On(ports PDPorts) ([]PDProcess, error) {
	if d.PD == nil || d.Engine == nil {
		return RenderPD(d.Config, d.Target, ports)
	}
	return renderPD(d.Engine, *d.PD, d.Config, d.Target, ports)
}

// Key identifies what the deployment serves (DeploymentKey).
func (d Deployed) Key() string {
	if d.PD == nil {
		return d.Command.Key()
	}
	var b strings.Builder
	for _, pr := range d.Processes {
		b.WriteString(pr.Name() + "\x00" + pr.Command.Key() + "\x01")
	}
	return b.String()
}

// Listen is how the deployment's one server binds host:port when
// something other than the launcher starts it (ListenFor).
func (d Deployed) Listen(host string, port int) (args []string, env map[string]string, listens int) {
	dc, isDeclared := d.Engine.(declared)
	if !isDeclared {
		args, _ = d.Engine.Listen(host, port, d.Model, d.Target.ServedName())
		return args, map[string]string{}, port
	}
	if p := dc.FixedPort(); p > 0 {
		port = p
	}
	args, env = dc.listen(host, port, d.Target.ServedName())
	return args, env, port
}

// servePort is where e serves when nothing picks its port.
func servePort(e Engine) int {
	if dc, ok := e.(declared); ok && dc.FixedPort() > 0 {
		return dc.FixedPort()
	}
	if p := e.DefaultPort(); p > 0 {
		return p
	}
	return fallbackPort
}

// lookupEngine is Lookup with the refusal Render gives an unknown engine.
func lookupEngine(name string, t space.Target) (Engine, error) {
	e, ok := Lookup(name, t)
	if !ok {
		return nil, invalid("unknown engine %q (known: %s)", name, strings.Join(names(t), ", "))
	}
	return e, nil
}

// ServesPD reports whether the built-in engine serves disaggregated
// prefill/decode deployments (a router in front of prefill and decode
// servers).
func ServesPD(engine string) bool {
	e, ok := Lookup(engine, space.Target{})
	if !ok {
		return false
	}
	_, ok = e.(pdEngine)
	return ok
}

// PDEngines lists the built-in engines that serve disaggregated, in
// name order.
func PDEngines() []string {
	var out []string
	for _, n := range Names() {
		if ServesPD(n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
