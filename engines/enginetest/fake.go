package enginetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/servetune/servetune/bench/benchtest"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/space"
)

// Mode is how a fake engine behaves.
type Mode string

const (
	OK           Mode = "ok"            // start, become ready, serve
	Hang         Mode = "hang"          // bind the port but never become ready
	OOM          Mode = "oom"           // print the engine's OOM error at startup and exit 1
	Invalid      Mode = "invalid"       // print the engine's config ValueError and exit 1
	PortConflict Mode = "port_conflict" // fail to bind: address already in use
	Crash        Mode = "crash"         // exit 139 during startup with no known message
	Mute         Mode = "mute"          // become ready, accept requests, never answer them
	Reject       Mode = "reject"        // become ready, answer every request 400 as vLLM does a too-long prompt
)

// Options script one fake engine.
type Options struct {
	Mode Mode
	// StartupDelay is spent "loading the model" before ready.
	StartupDelay time.Duration
	// TTFT and ITL shape the streamed completions.
	TTFT, ITL time.Duration
	// DieAfter > 0 makes the engine crash (CUDA error, exit 1) when its
	// DieAfter-th completions request arrives.
	DieAfter int
	// IgnoreTerm ignores SIGTERM, so only SIGKILL stops it.
	IgnoreTerm bool
	// Worker forks a child into the engine's process group, as vLLM and
	// SGLang fork engine-core and scheduler processes.
	Worker bool
	// Workers forks that many children instead (tensor-parallel ranks).
	Workers int
	// Setsid makes the last worker start its own session, leaving the
	// engine's process group as a daemonising helper would.
	Setsid bool
	// ForkOnTerm makes SIGTERM start a helper in its own session (a
	// shutdown hook's process) just before the engine exits: a process
	// born after the teardown's first signal.
	ForkOnTerm bool
	// OOMAbove makes a mem_fraction above it fail with OOM, so a sampler
	// test has an infeasible region to learn.
	OOMAbove float64
	// PIDFile, when set, receives "PID PGID" of the engine and of each
	// worker (one line each).
	PIDFile string
	// CrashRank > 0 makes that rank of a multi-node trial print a CUDA
	// error and exit 1 as it starts, so a test can fail one rank alone.
	CrashRank int
	// VersionFile holds what GoSim's --version reports; a test changes it
	// to upgrade the engine between runs.
	VersionFile string
	// RecordFile, when set, receives a line when the engine starts and
	// one when SIGTERM stops it, with its port and CUDA_VISIBLE_DEVICES
	// (read them with ReadLives).
	RecordFile string
}

const envOptions = "SERVETUNE_FAKE_ENGINE"

// guardArg as this binary's first argument makes it the guardian.
const guardArg = "-servetune-guard"

// Target returns a target whose engine program is this test binary acting
// as a fake of engine.
func Target(engine, model string, o Options) space.Target {
	return space.Target{
		Runner: "process", Model: model, Engine: engine, GPUs: 1, GPU: "fake",
		Engines: map[string]space.EngineTarget{engine: {Command: []string{Program()}, Env: Env(engine, o)}},
	}
}

// Program is the fake engine's program: this test binary.
func Program() string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return exe
}

// Env is the environment that makes Program a fake of engine.
func Env(engine string, o Options) map[string]string {
	b, _ := json.Marshal(struct {
		Engine string
		Options
	}{engine, o})
	return map[string]string{envOptions: string(b)}
}

// Guard is a Launcher.Guard that runs launch.RunGuard in this test
// binary, so package tests exercise the guardian without servetune.
func Guard() []string { return []string{Program(), guardArg} }

// Main turns this process into a fake engine (or the guardian of one)
// when its arguments or environment say so, and never returns then;
// otherwise it returns at once.
func Main() {
	if len(os.Args) > 1 && os.Args[1] == guardArg {
		os.Exit(launch.RunGuard(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	raw := os.Getenv(envOptions)
	if raw == "" {
		return
	}
	var o struct {
		Engine string
		Options
	}
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		fmt.Fprintln(os.Stderr, "fake engine: bad options:", err)
		os.Exit(2)
	}
	if os.Getenv("SERVETUNE_FAKE_ROLE") == "worker" {
		worker(o.Options)
	}
	os.Exit(run(o.Engine, o.Options, os.Args[1:], os.Stdout, os.Stderr))
}

func worker(o Options) {
	if o.IgnoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	appendPID(o.PIDFile)
	select {} // hold the "GPU" until killed
}

func appendPID(path string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%d %d\n", os.Getpid(), syscall.Getpgrp())
	f.Close()
}

func run(engine string, o Options, args []string, stdout, stderr io.Writer) int {
	var started atomic.Pointer[event] // set once the engine knows its port
	var busy span
	onTerm(o, stdout, &started, &busy)
	if isVersionQuery(args) {
		// servetune fingerprints the engine before launching it; the
		// query is not an engine (no pidfile line, no workers).
		fmt.Fprintf(stdout, "%s version %s\n", engine, fakeVersion(o))
		return 0
	}
	appendPID(o.PIDFile)
	if engine == GoSim {
		return goSim(o, args, stdout, stderr)
	}
	role, args := splitRank(args)
	p, err := engines.ParseArgs(engine, args, engines.Latest())
	if err == nil && len(p.Extra) > 0 {
		err = fmt.Errorf("unrecognized arguments: %s", strings.Join(p.Extra, " "))
	}
	if err != nil {
		return usageError(engine, err, stderr)
	}
	if role.multi && !role.head() {
		return runRank(engine, o, p, role, stdout, stderr)
	}
	e := newEvent(p)
	e.write(o.RecordFile, "start")
	started.Store(&e)
	if err := startWorkers(o); err != nil {
		fmt.Fprintln(stderr, "fake engine: worker:", err)
		return 1
	}
	l := lines(engine, p)
	fmt.Fprintln(stdout, l.starting)
	mode := o.Mode
	if f, ok := p.Config.Float(engines.KnobMemFraction); ok && o.OOMAbove > 0 && f > o.OOMAbove {
		mode = OOM
	}
	switch mode {
	case OOM:
		fmt.Fprintln(stderr, strings.Join(l.oom, "\n"))
		return 1
	case Invalid:
		fmt.Fprintln(stderr, strings.Join(l.invalid, "\n"))
		return 1
	case PortConflict:
		fmt.Fprintf(stderr, "ERROR:    [Errno 98] error while attempting to bind on address ('%s', %d): address already in use\n", p.Host, p.Port)
		return 1
	case Crash:
		fmt.Fprintln(stderr, "Fatal Python error: Segmentation fault")
		return 139
	}
	if role.multi {
		conns, err := awaitPeers(role, role.peers(p.Config), stdout)
		if err != nil {
			fmt.Fprintln(stderr, "RuntimeError:", err)
			return 1
		}
		defer runtime.KeepAlive(conns) // serve never returns; the ranks stay connected
	}
	return serve(engine, o, p, l, mode == Hang, &busy, stdout, stderr)
}

// onTerm makes SIGTERM shut the engine down as a real one does, recording
// its stop, unless it is told to ignore SIGTERM.
func onTerm(o Options, stdout io.Writer, started *atomic.Pointer[event], busy *span) {
	if o.IgnoreTerm {
		signal.Ignore(syscall.SIGTERM)
		return
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		if e := started.Load(); e != nil {
			stop := *e
			stop.First, stop.Last = busy.times()
			stop.write(o.RecordFile, "stop")
		}
		fmt.Fprintln(stdout, "INFO:     Shutting down")
		if o.ForkOnTerm {
			forkHelper(o)
		}
		os.Exit(0)
	}()
}

// forkHelper starts a worker in a session of its own and records its PID
// itself (a teardown may kill the helper before it can), then waits a
// little for the helper's own line so that it is running when the engine
// exits.
func forkHelper(o Options) {
	before := countLines(o.PIDFile)
	w := exec.Command(os.Args[0])
	w.Env = append(os.Environ(), "SERVETUNE_FAKE_ROLE=worker")
	w.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if w.Start() != nil {
		return
	}
	if f, err := os.OpenFile(o.PIDFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintf(f, "%d %d\n", w.Process.Pid, w.Process.Pid) // setsid: its own group
		f.Close()
		before++
	}
	for deadline := time.Now().Add(5 * time.Second); countLines(o.PIDFile) == before && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // polling the file the helper writes
	}
}

func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}

// startWorkers forks the engine's workers and, when it keeps a pidfile,
// waits (at most workerStartWait) for each to record itself there before
// the engine goes on to serve, as real engines start their workers before
// they listen: on a loaded machine a reap of a ready engine otherwise
// came before its worker had written its line (TestReapStale under a CPU
// hog).
func startWorkers(o Options) error {
	n := o.Workers
	if n == 0 && o.Worker {
		n = 1
	}
	before := countLines(o.PIDFile)
	for i := range n {
		w := exec.Command(os.Args[0])
		w.Env = append(os.Environ(), "SERVETUNE_FAKE_ROLE=worker")
		w.SysProcAttr = &syscall.SysProcAttr{Setsid: o.Setsid && i == n-1}
		if err := w.Start(); err != nil {
			return err
		}
	}
	if o.PIDFile == "" {
		return nil
	}
	for deadline := time.Now().Add(workerStartWait); countLines(o.PIDFile) < before+n && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // polling the file the workers write
	}
	return nil
}

// workerStartWait bounds startWorkers' wait for its workers' pidfile lines.
const workerStartWait = 30 * time.Second

func usageError(engine string, err error, stderr io.Writer) int {
	if engine == engines.TRTLLM {
		fmt.Fprintf(stderr, "Usage: trtllm-serve serve [OPTIONS] MODEL\nTry 'trtllm-serve serve --help' for help.\n\nError: No such option: %v\n", err)
		return 2
	}
	prog := map[string]string{engines.VLLM: "vllm serve", engines.SGLang: "launch_server.py"}[engine]
	fmt.Fprintf(stderr, "usage: %s [-h] ...\n%s: error: %v\n", prog, prog, err)
	return 2
}

// tooLong is vLLM's answer to a prompt longer than the model's context.
const tooLong = `{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`

func serve(engine string, o Options, p engines.Parsed, l engineLines, hang bool, busy *span, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", net.JoinHostPort(p.Host, strconv.Itoa(p.Port)))
	if err != nil {
		fmt.Fprintf(stderr, "OSError: [Errno 98] Address already in use: %v\n", err)
		return 1
	}
	flavor := map[string]benchtest.Flavor{engines.VLLM: benchtest.VLLM, engines.SGLang: benchtest.SGLang, engines.TRTLLM: benchtest.TRTLLM}[engine]
	stream := benchtest.NewServer(benchtest.Config{Flavor: flavor, TTFT: o.TTFT, ITL: o.ITL})
	var ready atomic.Bool
	var requests atomic.Int64
	name := p.ServedName
	if name == "" {
		name = p.Model
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model"}]}`, name)
	})
	mux.HandleFunc("POST /v1/", func(w http.ResponseWriter, r *http.Request) {
		busy.add(time.Now())
		defer func() { busy.add(time.Now()) }()
		if o.DieAfter > 0 && requests.Add(1) >= int64(o.DieAfter) {
			fmt.Fprintln(stderr, strings.Join(l.crash, "\n"))
			os.Exit(1)
		}
		switch o.Mode {
		case Mute:
			<-r.Context().Done()
		case Reject:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, tooLong)
		default:
			stream.Config.Handler.ServeHTTP(w, r)
		}
	})
	go func() { _ = http.Serve(ln, mux) }()
	if !hang {
		time.Sleep(o.StartupDelay) // the fake's model load, not test timing
		ready.Store(true)
		fmt.Fprintln(stdout, l.ready)
	}
	<-make(chan struct{}) // serve until signalled
	return 0
}

// isVersionQuery recognises `--version` and the python one-liners that
// print SGLang's and TensorRT-LLM's versions.
func isVersionQuery(args []string) bool {
	return len(args) == 1 && args[0] == "--version" || len(args) == 2 && args[0] == "-c" && strings.Contains(args[1], "__version__")
}

// fakeVersion is Options.VersionFile's content, or 0.0.0.
func fakeVersion(o Options) string {
	if b, err := os.ReadFile(o.VersionFile); err == nil {
		return strings.TrimSpace(string(b))
	}
	return "0.0.0"
}
