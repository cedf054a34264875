package launch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// startPD launches a disaggregated trial on this machine: every prefill
// and decode server, then the router, each process by argv in its own
// process group under the guardian, with its own pidfile, log
// (engine.prefill-0.log, …; the router's is engine.log), free ports and
// GPUs (consecutive slices of the trial's CUDA_VISIBLE_DEVICES, or of
// 0…N-1 when it has none; the router sees none). The returned Server is
// the router's: the benchmark goes through it, it is ready when every
// server and then the router answer their probes, it is done when any
// process exits, and Stop stops them all together.
func (l *Launcher) startPD(ctx context.Context, d engines.Deployed, dir string) (*Server, error) {
	t, p := d.Target, *d.PD
	ports, err := freePDPorts(p, engines.BindHost(t))
	if err != nil {
		return nil, err
	}
	pl, err := l.placement(d, &ports)
	if err != nil {
		return nil, err
	}
	procs, err := d.On(ports)
	if err != nil {
		return nil, err
	}
	all := visibleDevices(l.visible(t, d.Name))
	if pl.devices == nil {
		if pl.devices, all, err = splitDevices(procs, l.visible(t, d.Name)); err != nil {
			return nil, err
		}
	}
	head := l.pdHead(ctx, d, dir, procs, ports, all, pl.hosts[len(pl.hosts)-1])
	if err := l.startPDProcesses(ctx, head, t, procs, pl, dir); err != nil {
		return nil, err
	}
	l.Log.Info().Str("engine", head.Engine).Int("prefill", p.PrefillCount).Int("decode", p.DecodeCount).Str("url", head.BaseURL).Msg("disaggregated deployment started")
	return head, nil
}

// startPDProcesses starts every process in order, the router (head)
// last; on a failure it stops those already started.
func (l *Launcher) startPDProcesses(ctx context.Context, head *Server, t space.Target, procs []engines.PDProcess, pl pdPlacement, dir string) error {
	for i, pr := range procs {
		s := head
		if pr.Role != engines.RoleRouter {
			s = &Server{Engine: head.Engine, LogPath: filepath.Join(dir, "engine."+pr.Name()+".log"), eng: head.eng}
			head.group.peers = append(head.group.peers, s)
		}
		if err := l.startPDProcess(s, t, pr, i, pl.hosts[i], pl.devices[i], pl.remote, dir, head); err != nil {
			_ = head.halt(ctx, orDefault(l.Grace, defaultGrace))
			head.closeLogs()
			if head.log != nil {
				head.log.Close()
			}
			return err
		}
		head.Ranks = append(head.Ranks, RankProcess{Rank: i, Role: pr.Name(), Host: pl.hosts[i], Argv: s.Argv, PGID: s.PGID, LogPath: s.LogPath})
	}
	return nil
}

// pdHead prepares the router's Server, which holds the deployment: its
// URL, the name clients send, the probes of every process, the
// environment fingerprint (a server's) and the GPU baseline.
func (l *Launcher) pdHead(ctx context.Context, d engines.Deployed, dir string, procs []engines.PDProcess, ports engines.PDPorts, devices []string, node string) *Server {
	t, name, eng, model := d.Target, d.Name, d.Engine, d.Model
	host := engines.BindHost(t)
	_, served := eng.Listen(host, 0, model, t.ServedName())
	router := procs[len(procs)-1]
	head := &Server{Engine: name, Model: served, Port: router.Port, LogPath: filepath.Join(dir, "engine.log"), eng: eng,
		BaseURL: "http://" + net.JoinHostPort(rankDialHost(host, node), strconv.Itoa(router.Port)),
		group:   &rankGroup{anyDone: make(chan struct{}), hosts: map[*Server]string{}, ranks: map[*Server]int{}, labels: map[*Server]string{}}}
	for i, pr := range procs {
		at := engines.DialHost(host)
		if i < len(procs)-1 {
			at = ports.ServerHost(i, host) // where the router finds it
		}
		head.readyAll = append(head.readyAll, readyTarget{base: "http://" + net.JoinHostPort(at, strconv.Itoa(pr.Port)), paths: pr.Probes, roster: pr.Roster})
	}
	head.Fingerprint = l.fingerprint(ctx, d, l.env(t, name, procs[0].Command))
	base, _, _ := l.gpuApps(ctx)
	head.gpus = gpuWatch{devices: devices, before: base.pidSet()}
	return head
}

// startPDProcess starts process i of the deployment into s and has the
// head's group watch it. The router runs target.engines.<name>.router in
// place of its program, when set; servers run command, as usual.
func (l *Launcher) startPDProcess(s *Server, t space.Target, pr engines.PDProcess, i int, node, devices string, remote bool, dir string, head *Server) error {
	c := pr.Command
	env := map[string]string{"CUDA_VISIBLE_DEVICES": devices}
	for k, v := range pr.Command.Env {
		env[k] = v
	}
	c.Env = env
	et := t.Engines[s.Engine]
	if pr.Role == engines.RoleRouter {
		et = space.EngineTarget{Command: et.Router}
	}
	argv, err := l.argv(c, et, t.Prefix, nil, dir)
	if err != nil {
		return err
	}
	if remote {
		argv = append(onNode(t.NodeLaunch, node, c.Env), argv...)
	}
	s.Argv, s.l, s.dir, s.done = argv, l, dir, make(chan struct{})
	s.env = l.env(t, s.Engine, c)
	if s.log, err = openCappedLog(s.LogPath, l.LogLimit); err != nil {
		return err
	}
	s.Ran = ran(argv, setEnv(t, s.Engine, c.Env), l.baseEnv())
	fmt.Fprintf(s.log, "[servetune: %s: %s]\n", pr.Name(), s.Ran.Shell())
	if err := s.spawn(); err != nil {
		s.log.Close()
		return spawnFailure(s.Engine, argv[0], err)
	}
	head.group.watch(s, i, node)
	head.group.labels[s] = pr.Name()
	l.Log.Info().Str("engine", s.Engine).Str("process", pr.Name()).Int("pid", s.PGID).Str("log", s.LogPath).Msg("process started")
	return nil
}

// placement is where each process runs: spread over target.nodes when
// the deployment is larger than a node (pd_nodes.go), else all here,
// the GPUs split later from the trial's.
func (l *Launcher) placement(d engines.Deployed, ports *engines.PDPorts) (pdPlacement, error) {
	t := d.Target
	if pdAcrossNodes(d) {
		return placeOnNodes(d, ports)
	}
	n := d.PD.PrefillCount + d.PD.DecodeCount + 1
	pl := pdPlacement{}
	for range n {
		pl.hosts = append(pl.hosts, engines.DialHost(engines.BindHost(t)))
	}
	return pl, nil
}

// freePDPorts picks a distinct free port on host for every process, each
// prefill server's bootstrap and each server's side channel.
func freePDPorts(p engines.PD, host string) (engines.PDPorts, error) {
	seen := map[int]bool{}
	pick := func(n int) ([]int, error) {
		var out []int
		for len(out) < n {
			port, err := freePort(host)
			if err != nil {
				return nil, err
			}
			if !seen[port] {
				seen[port] = true
				out = append(out, port)
			}
		}
		return out, nil
	}
	all, err := pick(1 + 2*p.PrefillCount + p.DecodeCount + p.PrefillCount + p.DecodeCount)
	if err != nil {
		return engines.PDPorts{}, err
	}
	np, nd := p.PrefillCount, p.DecodeCount
	return engines.PDPorts{Router: all[0], Prefill: all[1 : 1+np], Decode: all[1+np : 1+np+nd],
		Bootstrap: all[1+np+nd : 1+2*np+nd], SideChannel: all[1+2*np+nd:]}, nil
}

// splitDevices gives each server its own consecutive GPUs of the
// trial's devices (0…N-1 when it names none), the router none; all is
// the trial's device list when it names one.
func splitDevices(procs []engines.PDProcess, visible string) (per []string, all []string, err error) {
	need := 0
	for _, pr := range procs {
		need += pr.GPUs
	}
	devices := visibleDevices(visible)
	all = devices
	if len(devices) == 0 {
		for i := 0; i < need; i++ {
			devices = append(devices, strconv.Itoa(i))
		}
	}
	if len(devices) < need {
		return nil, nil, invalid("the disaggregated deployment needs %d GPUs and the trial has %d (%s)", need, len(devices), visible)
	}
	next := 0
	for _, pr := range procs {
		per = append(per, strings.Join(devices[next:next+pr.GPUs], ","))
		next += pr.GPUs
	}
	return per, all, nil
}

// visible is the GPU list the deployment splits: the trial's (target or
// engine environment), else the one servetune inherited, so a slice "0,1"
// never names devices outside what this process was given.
func (l *Launcher) visible(t space.Target, engine string) string {
	if v, ok := setEnv(t, engine, nil)["CUDA_VISIBLE_DEVICES"]; ok {
		return v
	}
	for _, kv := range l.baseEnv() {
		if v, ok := strings.CutPrefix(kv, "CUDA_VISIBLE_DEVICES="); ok {
			return v
		}
	}
	return ""
}

// readyTarget is one process's probes.
type readyTarget struct {
	base   string
	paths  []string
	roster *engines.Roster // the router's: every server listed
}

// allProbe reports whether every process answers its probes, in order:
// the servers, then the router, which must also list every server.
func allProbe(client *http.Client, targets []readyTarget, each time.Duration) func(context.Context) bool {
	return func(ctx context.Context) bool {
		for _, t := range targets {
			if !httpProbe(client, t.base, t.paths, each)(ctx) || !(t.roster == nil || t.roster.Probe(client, t.base, each)(ctx)) {
				return false
			}
		}
		return true
	}
}
