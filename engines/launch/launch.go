package launch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// Defaults for a Launcher's zero fields.
const (
	defaultStartupTimeout = 30 * time.Minute // big checkpoints load slowly
	defaultPollInterval   = time.Second
	defaultProbeTimeout   = 5 * time.Second
	defaultGPUFreeTimeout = 5 * time.Minute
)

// Launcher starts engines for trials. The zero value plus a logger works;
// tests shorten the durations and replace GPUApps.
type Launcher struct {
	Log zerolog.Logger
	// PidDir receives a pidfile per running engine (see ReapStale); the
	// study directory's owner (studydir.Dir) says where it is.
	PidDir string
	// Grace is SIGTERM → SIGKILL; default 30s (defaultGrace).
	Grace time.Duration
	// LogLimit caps engine.log; default 32 MiB (defaultLogLimit).
	LogLimit     int64
	PollInterval time.Duration
	ProbeTimeout time.Duration
	// GPUFreeTimeout bounds the wait for the GPUs to be released after a
	// teardown; default 5m (defaultGPUFreeTimeout).
	GPUFreeTimeout time.Duration
	// GPUApps lists the processes using GPU memory and their GPUs;
	// ok=false means "cannot tell" and skips the wait. Nil uses
	// nvidia-smi when it is on PATH.
	GPUApps func(ctx context.Context) (u GPUUsage, ok bool, err error)
	// Environ is the engine's base environment; nil means os.Environ().
	Environ []string
	// fingerprints caches each engine's environment for the launcher's
	// life (one study run): a version command may take seconds.
	fpMu         sync.Mutex
	fingerprints map[string]engines.Fingerprint
	// Guard is the argv prefix that runs the guardian (RunGuard), e.g.
	// servetune's own binary and its hidden guard command. The guardian
	// makes the engine and everything it starts die with servetune, even
	// after kill -9. Empty launches the engine directly; it then dies with
	// servetune (Pdeathsig) but its workers are left to ReapStale.
	Guard []string
	// Live records every engine group this launcher starts, for a stop
	// that cannot wait for the teardown (Live.Kill); nil records nothing.
	Live *Live
}

// Server is one running engine.
type Server struct {
	Engine string
	// BaseURL is the server root, e.g. http://127.0.0.1:41234.
	BaseURL string
	// Model is the name clients must send.
	Model   string
	Port    int
	PGID    int
	LogPath string
	// Argv is what was executed (prefix and program override included).
	Argv []string
	// Ran is Argv with every variable servetune set for the engine,
	// credentials redacted: the command a user copies to rerun the trial.
	Ran engines.Command
	// Fingerprint is the environment the engine runs in.
	Fingerprint engines.Fingerprint
	// Ranks lists every rank of a trial larger than one node, rank 0
	// (this Server) first; nil on one node.
	Ranks []RankProcess

	l        *Launcher
	eng      engines.Engine
	live     liveSetup // nil unless the engine needs setup against the live server
	dir      string
	env      []string
	setup    [][]string
	cmd      *exec.Cmd
	lifeline *os.File // write end of the guardian's stdin; nil unguarded
	log      *cappedLog
	done     chan struct{}
	exit     engines.Exit
	pidfile  string
	gpus     gpuWatch
	stop     sync.Once
	stopErr  error
	group    *rankGroup    // the other ranks of a multi-node trial, or the servers behind a router
	readyAll []readyTarget // a disaggregated deployment's probes, every process's
}

// ErrProgram says the engine's program cannot be run at all (not
// installed, not executable): a problem of the machine, not of the config,
// so a study stops instead of recording every trial as failed.
var ErrProgram = errors.New("cannot run the engine program")

// Start renders cfg for the target, picks a free port on the target host
// and starts the engine in dir (engine.log and generated files go there).
// It returns once the process runs; call WaitReady next and Stop always.
// An engine program that cannot be run is ErrProgram; other errors are
// the config's (*Failure) or the machine's.
func (l *Launcher) Start(ctx context.Context, cfg space.Config, t space.Target, dir string) (*Server, error) {
	d, err := engines.Deploy(cfg, t)
	if err != nil {
		return nil, err
	}
	if d.PD != nil {
		return l.startPD(ctx, d, dir) // pd_launch.go
	}
	if multiNodeTrial(d) {
		return l.startRanks(ctx, d, dir)
	}
	return l.startOne(ctx, d, dir)
}

// startOne starts a trial of one server on one node.
func (l *Launcher) startOne(ctx context.Context, d engines.Deployed, dir string) (*Server, error) {
	name, cmd, eng, model, t := d.Name, d.Command, d.Engine, d.Model, d.Target
	live, _ := eng.(liveSetup)
	if live != nil {
		if err := live.Check(model); err != nil {
			return nil, err
		}
	}
	host := engines.BindHost(t)
	port, err := enginePort(eng, host)
	if err != nil {
		return nil, err
	}
	listen, served := eng.Listen(host, port, model, t.ServedName())
	argv, err := l.argv(cmd, t.Engines[name], t.Prefix, listen, dir)
	if err != nil {
		return nil, err
	}
	s := &Server{Engine: name, Model: served, Port: port, Argv: argv, l: l, eng: eng, done: make(chan struct{}),
		BaseURL: "http://" + net.JoinHostPort(engines.DialHost(host), fmt.Sprint(port)), LogPath: filepath.Join(dir, "engine.log"),
		live: live, dir: dir, env: l.env(t, name, cmd), setup: setupArgv(cmd, t.Engines[name], t.Prefix)}
	shown := cmd.Env
	if d, ok := eng.(listenEnver); ok {
		shown = withListenEnv(d, shown, host, port, t.ServedName())
		s.env = append(s.env, envList(d.ListenEnv(host, port, t.ServedName()))...)
	}
	if live != nil {
		shown = map[string]string{}
		for k, v := range cmd.Env {
			shown[k] = v
		}
		for k, v := range live.ServeEnv(host, port, dir) {
			s.env = append(s.env, k+"="+v) // last wins: the trial's port, not the user's OLLAMA_HOST
			shown[k] = v
		}
	}
	if s.log, err = openCappedLog(s.LogPath, l.LogLimit); err != nil {
		return nil, err
	}
	s.Ran = ran(argv, setEnv(t, name, shown), l.baseEnv())
	s.Fingerprint = l.fingerprint(ctx, d, s.env)
	fmt.Fprintf(s.log, "[servetune: %s]\n", s.Ran.Shell())
	base, _, _ := l.gpuApps(ctx)
	s.gpus = gpuWatch{devices: visibleDevices(setEnv(t, name, shown)["CUDA_VISIBLE_DEVICES"]), before: base.pidSet()}
	if err := s.spawn(); err != nil {
		s.log.Close()
		if errors.Is(err, errStopping) {
			return nil, err
		}
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			// Not the config's fault: every trial would fail the same way.
			return nil, fmt.Errorf("%w: %s: %v (install it, or set [target.engines.%s] command or target.prefix)", ErrProgram, argv[0], err, name)
		}
		return nil, &engines.Failure{Class: engines.InvalidConfig, Message: fmt.Sprintf("%s: cannot start %s: %v", name, argv[0], err)}
	}
	l.Log.Info().Str("engine", name).Int("pid", s.PGID).Str("url", s.BaseURL).Str("log", s.LogPath).Str("command", s.Ran.Shell()).Msg("engine started")
	return s, nil
}

func (s *Server) wait() {
	err := s.cmd.Wait()
	if s.lifeline != nil {
		s.lifeline.Close()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		s.exit = engines.Exit{Exited: true}
	case errors.As(err, &ee):
		s.exit = engines.Exit{Exited: true, Code: ee.ExitCode()}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			s.exit.Signal = ws.Signal().String()
		}
	default:
		s.exit = engines.Exit{Exited: true, Code: -1}
	}
	close(s.done)
}

// Done is closed when the engine process has exited (on several nodes:
// when any rank has).
func (s *Server) Done() <-chan struct{} {
	if s.group != nil {
		return s.group.anyDone
	}
	return s.done
}

// WaitReady blocks until every readiness probe answers 200. It returns a
// *Failure when the engine exits first (classified from its log) or the
// timeout passes (default 30m, defaultStartupTimeout), and ctx.Err() when ctx
// ends.
func (s *Server) WaitReady(ctx context.Context, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = defaultStartupTimeout
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	probe := s.probe(client)
	r, err := waitReady(ctx, probe, s.Done(), orDefault(s.l.PollInterval, defaultPollInterval), timeout)
	switch {
	case err != nil:
		return err
	case r == exited:
		return s.Failure(engines.Starting)
	case r == timedOut:
		return engines.Classify(s.eng, engines.Starting, engines.Exit{TimedOut: true}, s.log.Tail(200))
	}
	if s.live != nil {
		if err := s.setUp(ctx, client, timeout); err != nil {
			return err
		}
	}
	s.l.Log.Info().Str("engine", s.Engine).Str("url", s.BaseURL).Msg("engine ready")
	return nil
}

// Failure classifies the engine's end from its exit and log tail.
func (s *Server) Failure(stage engines.Stage) *engines.Failure {
	if s.group != nil {
		return s.groupFailure(stage)
	}
	exit := engines.Exit{}
	select {
	case <-s.done:
		exit = s.exit
	default:
	}
	return engines.Classify(s.eng, stage, exit, s.log.Tail(200))
}

// Tail returns the last n lines of engine.log.
func (s *Server) Tail(n int) []string { return s.log.Tail(n) }

// Stop tears the engine down: SIGTERM to its process group, SIGKILL after
// the grace period, then waits for the GPUs it used to be released (its
// own only, see gpuWatch). It is safe to call more than once and keeps
// going when ctx is cancelled (an interrupted servetune must still not
// leave engines behind).
func (s *Server) Stop(ctx context.Context) error {
	s.stop.Do(func() {
		ctx := context.WithoutCancel(ctx)
		if len(s.gpus.devices) > 0 {
			s.gpus.tree = engineTree(s.PGID) // while it still runs
		}
		err := s.halt(ctx, orDefault(s.l.Grace, defaultGrace))
		if err == nil && s.live != nil {
			for _, p := range s.live.Scratch(s.dir) {
				_ = os.RemoveAll(p)
			}
		}
		s.log.Close()
		s.closeLogs()
		s.stopErr = errors.Join(err, s.l.waitGPUsFree(ctx, s.gpus))
		s.l.Log.Info().Str("engine", s.Engine).Int("pid", s.PGID).Msg("engine stopped")
	})
	return s.stopErr
}

// waitGPUsFree polls until none of the GPU processes w waits for remains,
// so a slowly dying engine cannot make the next trial on its GPUs run out
// of memory.
func (l *Launcher) waitGPUsFree(ctx context.Context, w gpuWatch) error {
	limit := orDefault(l.GPUFreeTimeout, defaultGPUFreeTimeout)
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(orDefault(l.PollInterval, defaultPollInterval))
	defer tick.Stop()
	for {
		now, ok, err := l.gpuApps(ctx)
		if !ok || err != nil {
			return nil // cannot tell: nothing to wait for
		}
		left := w.left(now)
		if len(left) == 0 {
			return nil
		}
		select {
		case <-deadline.C:
			return fmt.Errorf("GPU processes %v still running %s after teardown", left, limit)
		case <-tick.C:
		}
	}
}

func (l *Launcher) gpuApps(ctx context.Context) (GPUUsage, bool, error) {
	if l.GPUApps != nil {
		return l.GPUApps(ctx)
	}
	return nvidiaSMIUsage(ctx)
}

// argv assembles prefix + program (or the target's override) + knob flags
// + listen flags, writing the command's files into dir.
func (l *Launcher) argv(c engines.Command, et space.EngineTarget, prefix, listen []string, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	program := c.Argv[:c.Program]
	if len(et.Command) > 0 {
		program = et.Command
	}
	args := append([]string(nil), c.Argv[c.Program:]...)
	for name, content := range c.Files {
		p, err := filepath.Abs(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, err
		}
		for i, a := range args {
			if strings.HasSuffix(a, "="+name) {
				args[i] = strings.TrimSuffix(a, name) + p
			}
		}
	}
	argv := append(append(append(append([]string(nil), prefix...), program...), args...), listen...)
	return argv, nil
}

// env layers: servetune's environment, the target's, the engine's, then
// what the config needs (later wins).
func (l *Launcher) env(t space.Target, engine string, c engines.Command) []string {
	env := l.baseEnv()
	for _, m := range []map[string]string{t.Env, t.Engines[engine].Env, c.Env} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			env = append(env, k+"="+m[k])
		}
	}
	return env
}

// baseEnv is what the engine inherits: Environ, else servetune's own.
func (l *Launcher) baseEnv() []string {
	if l.Environ == nil {
		return os.Environ()
	}
	return append([]string(nil), l.Environ...)
}

// setEnv is every variable servetune sets for the engine: the target's,
// the engine's, then the config's and listen ones (shown; later wins).
func setEnv(t space.Target, engine string, shown map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{t.Env, t.Engines[engine].Env, shown} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// freePort asks the kernel for a free port on host. Another process can
// take it before the engine binds; that shows up as a port_conflict
// failure, which the runner retries on a new port.
func freePort(host string) (int, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("no free port on %s: %w", host, err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
