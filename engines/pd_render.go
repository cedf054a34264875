package engines

import (
	"fmt"
	"net"
	"strings"

	"github.com/servetune/servetune/space"
)

// PDProcess is one process of a disaggregated deployment: a prefill or
// decode server, or the router in front, with its whole command (listen
// flags included: the router's command names the servers' ports).
type PDProcess struct {
	Role  string `json:"role"`
	Index int    `json:"index"`
	// Command is complete: program, knob and role flags, extra_args, then
	// the listen flags.
	Command Command `json:"command"`
	Port    int     `json:"port"`
	// GPUs is what the process holds (0 for the router).
	GPUs int `json:"gpus"`
	// Probes answer 200 once the process serves.
	Probes []string `json:"probes"`
	// PeerPorts are the ports other processes of the deployment connect
	// to besides Port (SGLang's bootstrap, vLLM's NIXL side channel).
	PeerPorts []int `json:"peer_ports,omitempty"`
	// HostEnv names the variable that must hold the address the other
	// processes reach this one at when they run elsewhere (vLLM's
	// VLLM_NIXL_SIDE_CHANNEL_HOST; "" when the engine tells peers
	// itself).
	HostEnv string `json:"host_env,omitempty"`
	// Roster (the router's) is how readiness confirms the router lists
	// every server (pd_roster.go); a launch detail, not shown.
	Roster *Roster `json:"-"`
}

// Name is how logs and messages name the process: "prefill-0",
// "decode-1", "router".
func (p PDProcess) Name() string {
	if p.Role == RoleRouter {
		return RoleRouter
	}
	return fmt.Sprintf("%s-%d", p.Role, p.Index)
}

// PDPorts are the ports of a deployment's processes: HTTP per server and
// for the router, SGLang's bootstrap port per prefill server and vLLM's
// NIXL side-channel base port per server (prefill first). Without a
// Router port (the zero PDPorts, Dial aside) they are the ports reports
// show (defaultPDPorts).
type PDPorts struct {
	Router          int
	Prefill, Decode []int
	Bootstrap       []int
	SideChannel     []int
	// Dial is where the router reaches each server (prefill first), when
	// not the bind address: a Kubernetes Service's name.
	Dial []string
}

// ServerHost is where the router reaches server i (prefill first).
func (p PDPorts) ServerHost(i int, host string) string {
	if i < len(p.Dial) && p.Dial[i] != "" {
		return p.Dial[i]
	}
	return DialHost(host)
}

// pdEngine is an engine that serves disaggregated: what each role adds to
// a server's command, and the router in front.
type pdEngine interface {
	// pdCheck refuses what version v cannot serve disaggregated.
	pdCheck(p PD, v Version) error
	// roleArgs are the flags and variables that make server i of role a
	// prefill or decode server.
	roleArgs(p PD, role string, i int, ports PDPorts) ([]string, map[string]string)
	// router is the router's command for the servers at the given URLs.
	router(p PD, host string, ports PDPorts) PDProcess
	// pdPeers are the ports server i of role (slot among all servers,
	// prefill first) is dialled at besides its HTTP port, and the
	// variable announcing its address (PDProcess).
	pdPeers(role string, i, slot int, ports PDPorts) ([]int, string)
}

// defaultPDPorts are the ports of a deployment's commands as reports
// show them: the router on the engine's own port, the servers on the
// ports after it (prefill first), SGLang's bootstrap ports from its
// default 8998 and vLLM's side channels from NIXL's default 5600, each
// server's block as wide as its data-parallel ranks.
func defaultPDPorts(p PD, e Engine) PDPorts {
	router := e.DefaultPort()
	if router == 0 {
		router = fallbackPort
	}
	out := PDPorts{Router: router}
	next := router + 1
	for i := 0; i < p.PrefillCount; i++ {
		out.Prefill = append(out.Prefill, next)
		out.Bootstrap = append(out.Bootstrap, sglangBootstrapPort+i)
		next++
	}
	for i := 0; i < p.DecodeCount; i++ {
		out.Decode = append(out.Decode, next)
		next++
	}
	side := nixlSideChannelPort
	for _, c := range append(repeat(p.Prefill, p.PrefillCount), repeat(p.Decode, p.DecodeCount)...) {
		out.SideChannel = append(out.SideChannel, side)
		side += knobInt(c, KnobDP)
	}
	return out
}

func repeat(c space.Config, n int) []space.Config {
	out := make([]space.Config, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// RenderPD renders every process of cfg's disaggregated deployment on
// the target's host with the given ports (the zero PDPorts in reports,
// free ports at launch): PrefillCount prefill servers, DecodeCount decode
// servers, then the router. Each server's command is Render's for its
// side plus its role flags, extra_args and listen flags. Pure.
func RenderPD(cfg space.Config, t space.Target, ports PDPorts) ([]PDProcess, error) {
	p, ok := SplitPD(cfg)
	if !ok {
		return nil, invalid("not a disaggregated config (%s = %q)", KnobDisaggregation, cfg.String(KnobDisaggregation))
	}
	e, err := lookupEngine(EngineOf(cfg, t), t)
	if err != nil {
		return nil, err
	}
	return renderPD(e, p, cfg, t, ports)
}

// renderPD is RenderPD on the engine already looked up and the split
// already read.
func renderPD(e Engine, p PD, cfg space.Config, t space.Target, ports PDPorts) ([]PDProcess, error) {
	pe, err := pdAdapter(e, cfg, t, p, &ports)
	if err != nil {
		return nil, err
	}
	host := BindHost(t)
	var out []PDProcess
	for _, side := range []struct {
		role  string
		cfg   space.Config
		count int
		ports []int
	}{{RolePrefill, p.Prefill, p.PrefillCount, ports.Prefill}, {RoleDecode, p.Decode, p.DecodeCount, ports.Decode}} {
		for i := 0; i < side.count; i++ {
			proc, err := pdServer(e, pe, p, t, side.role, side.cfg, i, host, side.ports[i], ports)
			if err != nil {
				return nil, err
			}
			out = append(out, proc)
		}
	}
	return append(out, pe.router(p, host, ports)), nil
}

// pdAdapter is e's disaggregated side when its version serves p on
// ports (the report's when they name no router port), else the refusal.
func pdAdapter(e Engine, cfg space.Config, t space.Target, p PD, ports *PDPorts) (pdEngine, error) {
	name := e.Name()
	pe, ok := e.(pdEngine)
	if !ok {
		return nil, invalid("%s does not serve disaggregated (servetune renders prefill/decode deployments for %s)", name, strings.Join(PDEngines(), " and "))
	}
	v, err := ParseVersion(t.Engines[name].Version)
	if err != nil {
		return nil, invalid("%s: %v", name, err)
	}
	if err := instanceCounts(cfg); err != nil {
		return nil, err
	}
	if ports.Router == 0 {
		dial := ports.Dial
		*ports = defaultPDPorts(p, e)
		ports.Dial = dial
	}
	if err := pdCounts(p, *ports); err != nil {
		return nil, err
	}
	return pe, pe.pdCheck(p, v)
}

// instanceCounts refuses a side without servers (SplitPD reads a count
// below 1 as 1).
func instanceCounts(cfg space.Config) error {
	for _, k := range []string{KnobPrefillInstances, KnobDecodeInstances} {
		if !cfg.Has(k) {
			continue
		}
		if n, ok := cfg.Int(k); !ok || n < 1 {
			return invalid("knob %s: %s = %s: want at least 1 server on each side", k, k, cfg.String(k))
		}
	}
	return nil
}

// pdCounts checks the instance counts and that every process has a port.
func pdCounts(p PD, ports PDPorts) error {
	if p.PrefillCount < 1 || p.DecodeCount < 1 {
		return invalid("a disaggregated deployment needs at least one prefill and one decode server (%s = %d, %s = %d)",
			KnobPrefillInstances, p.PrefillCount, KnobDecodeInstances, p.DecodeCount)
	}
	if len(ports.Prefill) < p.PrefillCount || len(ports.Decode) < p.DecodeCount || ports.Router == 0 ||
		len(ports.Bootstrap) < p.PrefillCount || len(ports.SideChannel) < p.PrefillCount+p.DecodeCount {
		return fmt.Errorf("engines: PD ports for %d prefill and %d decode servers, got %d and %d", p.PrefillCount, p.DecodeCount, len(ports.Prefill), len(ports.Decode))
	}
	return nil
}

// pdServer renders server i of one side.
func pdServer(e Engine, pe pdEngine, p PD, t space.Target, role string, side space.Config, i int, host string, port int, ports PDPorts) (PDProcess, error) {
	c, err := render(e, side, t)
	if err != nil {
		return PDProcess{}, prefixFailure(err, role+" side: ")
	}
	model, _ := ModelPath(side, t)
	args, env := pe.roleArgs(p, role, i, ports)
	extra := len(t.Engines[e.Name()].ExtraArgs)
	base := c.Argv[:len(c.Argv)-extra]
	listen, _ := e.Listen(host, port, model, t.ServedName())
	c.Argv = append(append(append(append([]string(nil), base...), args...), c.Argv[len(c.Argv)-extra:]...), listen...)
	if len(env) > 0 {
		merged := map[string]string{}
		for k, v := range c.Env {
			merged[k] = v
		}
		for k, v := range env {
			merged[k] = v
		}
		c.Env = merged
	}
	slot := i
	if role == RoleDecode {
		slot += p.PrefillCount
	}
	peers, hostEnv := pe.pdPeers(role, i, slot, ports)
	return PDProcess{Role: role, Index: i, Command: c, Port: port, GPUs: e.GPUs(side), Probes: e.Probes(),
		PeerPorts: peers, HostEnv: hostEnv}, nil
}

// prefixFailure names the side a refusal comes from.
func prefixFailure(err error, prefix string) error {
	if f, ok := err.(*Failure); ok {
		g := *f
		g.Message = prefix + f.Message
		return &g
	}
	return err
}

// routerURL is how the router reaches server i (prefill first).
func routerURL(ports PDPorts, i int, host string, port int) string {
	return "http://" + net.JoinHostPort(ports.ServerHost(i, host), itoa(port))
}

// PDText renders a deployment as the shell lines a user runs, one per
// process, each headed by its name, GPUs and port (pretty: one flag per
// line, as Command.Pretty).
func PDText(procs []PDProcess, pretty bool) string {
	var b strings.Builder
	for i, pr := range procs {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := pr.Command.Shell()
		if pretty {
			line = pr.Command.Pretty()
		}
		gpus := "s"
		if pr.GPUs == 1 {
			gpus = ""
		}
		fmt.Fprintf(&b, "# %s (%d GPU%s, port %d)\n%s", pr.Name(), pr.GPUs, gpus, pr.Port, line)
	}
	return b.String()
}

// DeploymentKey identifies what a config serves on the target: its
// command's Key, or every process's of a disaggregated deployment
// (rendered on the report ports, which launch replaces). An error is
// Render's or RenderPD's refusal.
func DeploymentKey(cfg space.Config, t space.Target) (string, error) {
	s, err := Deploy(cfg, t)
	if err != nil {
		return "", err
	}
	return s.Key(), nil
}
