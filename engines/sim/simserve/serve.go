package simserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// Options configure one simulated engine.
type Options struct {
	// Engine is the engine imitated: vllm, sglang or trtllm.
	Engine string
	GPU    string
	GPUs   int
	// Model names the model card when the checkpoint in Args is not one
	// (a local path, say); the checkpoint wins when it is a card.
	Model string
	// Speed divides every simulated duration, startup included; ≤ 0 is 1.
	Speed float64
	// Startup overrides the simulated launch → ready time; 0 is the
	// simulator's estimate (weights, CUDA graphs, compile).
	Startup time.Duration
	Seed    int64
	NoiseCV float64
	// Host and Port apply unless Args set the engine's own --host/--port
	// (as the launcher does).
	Host string
	Port int
	// Args are the imitated engine's arguments, program words optional.
	Args []string
	// Log receives the engine's log (its stdout and stderr).
	Log io.Writer
	// Cards is the catalogue; nil is the embedded one.
	Cards *sim.Cards
	// Role is the server's role in a disaggregated deployment when the
	// engine's flags leave it open: "prefill" or "decode" ("" = none;
	// role.go). The router is ServeRouter's.
	Role string

	// listen binds the server's address; nil is net.Listen. Tests pass an
	// in-memory network so the server runs on testing/synctest's clock
	// (loopback I/O would keep the bubble's clock from advancing).
	listen listenFunc
}

type listenFunc func(network, address string) (net.Listener, error)

// bind is net.Listen unless a test gave its network.
func (f listenFunc) bind(address string) (net.Listener, error) {
	if f == nil {
		return net.Listen("tcp", address)
	}
	return f("tcp", address)
}

// Serves reports whether sim serve imitates the engine's command line and
// API (vLLM, SGLang and TensorRT-LLM).
func Serves(engine string) bool {
	return slices.Contains([]string{engines.VLLM, engines.SGLang, engines.TRTLLM}, engine)
}

// Serve runs the simulated engine until ctx ends (SIGTERM), then returns
// nil. A command line or config the engine would refuse prints the
// engine's lines to o.Log and returns the *engines.Failure the launcher
// will classify from them.
func Serve(ctx context.Context, o Options) error {
	if !Serves(o.Engine) {
		return fmt.Errorf("sim serve: engine %q is not served (vllm, sglang, trtllm)", o.Engine)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Speed <= 0 {
		o.Speed = 1
	}
	lg := newEngineLog(o.Engine, o.Log)
	p, err := engines.ParseArgs(o.Engine, o.Args, engines.Latest())
	if err != nil {
		return lg.argError(err)
	}
	launch, unknown, err := readExtra(o.Engine, p.Extra)
	if err != nil {
		return lg.argError(launchFailure(err))
	}
	if len(unknown) > 0 {
		return lg.unrecognized(unknown)
	}
	role, err := roleOf(o.Engine, p.Extra, o.Role)
	if err != nil {
		return lg.argError(launchFailure(err))
	}
	sm := &sim.Simulator{Cards: o.Cards}
	if sm.Cards == nil {
		sm.Cards = sim.DefaultCards()
	}
	card := p.Model
	if _, err := sm.Cards.Model(card); err != nil {
		if o.Model == "" {
			return lg.fail(&engines.Failure{Class: engines.InvalidConfig, Message: err.Error()})
		}
		card = o.Model
	}
	t := space.Target{Engine: o.Engine, Model: card, GPU: o.GPU, GPUs: max(o.GPUs, 1), Sim: space.SimTarget{NoiseCV: o.NoiseCV}}
	cfg := p.Config
	served := p.ServedName
	if served == "" {
		served = p.Model
	}
	if served == "" {
		served = card
	}
	host, port := first(p.Host, o.Host, "127.0.0.1"), p.Port
	if port == 0 {
		port = o.Port
	}
	if port == 0 {
		e, _ := engines.Lookup(o.Engine, space.Target{})
		port = e.DefaultPort()
	}
	lg.banner(o, cfg, served)
	ln, err := o.listen.bind(net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return lg.bindError(host, port, err)
	}
	srv := &server{engine: o.Engine, served: served, checkpoint: p.Model, role: role, speed: o.Speed}
	if role == engines.RoleDecode {
		srv.transfer = transferModel(sm, cfg, t)
	}
	hs := &http.Server{Handler: srv.routes(), ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	defer shutdown(hs)

	// Startup costs its simulated time whether it succeeds or not; the
	// engine fails only after loading weights, as the real one does.
	live, liveErr := sm.NewLive(cfg, t, sim.LiveOptions{Speed: o.Speed, Seed: o.Seed, Launch: launch})
	startup := o.Startup
	if startup <= 0 {
		startup = sm.StartupTime(cfg, t)
	}
	if !sleep(ctx, time.Duration(float64(startup)/o.Speed)) {
		return nil
	}
	if liveErr != nil {
		f, ok := engines.AsFailure(liveErr)
		if !ok {
			f = &engines.Failure{Class: engines.InvalidConfig, Message: liveErr.Error()}
		}
		return lg.fail(f)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go live.Run(runCtx)
	srv.live.Store(live)
	lg.ready(live, host, port, startup)
	select {
	case <-ctx.Done():
		lg.infof("Shutting down")
		stop()
		return nil
	case err := <-serveErr:
		return fmt.Errorf("sim serve: %w", err)
	}
}

// shutdown gives open streams a moment to see ErrStopped and end.
func shutdown(hs *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if hs.Shutdown(ctx) != nil {
		hs.Close()
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func first(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// engineLog writes in one engine's log style.
type engineLog struct {
	engine string
	w      io.Writer
}

func newEngineLog(engine string, w io.Writer) *engineLog { return &engineLog{engine: engine, w: w} }

func (l *engineLog) infof(format string, a ...any) {
	fmt.Fprintln(l.w, l.line(fmt.Sprintf(format, a...)))
}

// line prefixes s the way the engine's Python logger does.
func (l *engineLog) line(s string) string {
	now := time.Now()
	var prefix string
	switch l.engine {
	case engines.VLLM:
		prefix = "INFO " + now.Format("01-02 15:04:05") + " [sim] "
	case engines.SGLang:
		prefix = "[" + now.Format("2006-01-02 15:04:05") + "] "
	default:
		prefix = "[" + now.Format("01/02/2006-15:04:05") + "] [TRT-LLM] [I] "
	}
	return prefix + s
}

// raw writes lines as the engine's traceback prints them: classifier
// patterns anchor on some of them.
func (l *engineLog) raw(lines ...string) {
	for _, s := range lines {
		fmt.Fprintln(l.w, s)
	}
}

func (l *engineLog) banner(o Options, cfg space.Config, served string) {
	args := strings.Join(o.Args, " ")
	switch l.engine {
	case engines.VLLM:
		l.infof("vLLM API server version sim (servetune, speed ×%g)", o.Speed)
		l.infof("non-default args: %s", args)
	case engines.SGLang:
		l.infof("server_args=ServerArgs(model_path=%q, served_model_name=%q, %s) [servetune sim, speed ×%g]", served, served, cfg.Key(), o.Speed)
	default:
		l.infof("TensorRT-LLM version: sim (servetune, speed ×%g); args: %s", o.Speed, args)
		l.infof("knobs with the extra options YAML applied: %s", cfg.Key())
	}
}

func (l *engineLog) ready(live *sim.Live, host string, port int, startup time.Duration) {
	for _, s := range live.PlanLog() {
		l.infof("%s", s)
	}
	m := live.Memory()
	url := "http://" + net.JoinHostPort(host, strconv.Itoa(port))
	switch l.engine {
	case engines.VLLM:
		l.infof("GPU KV cache size: %d tokens", live.KVTokens())
		l.infof("Maximum concurrency for %d tokens per request: %.2fx", live.MaxLen(), float64(live.KVTokens())/float64(max(live.MaxLen(), 1)))
		l.infof("init engine (profile, create kv cache, warmup model) took %.2f seconds", startup.Seconds())
		l.infof("Starting vLLM server on %s", url)
		l.infof("Available routes are:")
		for _, r := range []string{"/health", "/v1/models", "/v1/completions", "/v1/chat/completions"} {
			l.infof("Route: %s, Methods: %s", r, map[bool]string{true: "POST", false: "GET"}[strings.HasPrefix(r, "/v1/c")])
		}
		l.raw("INFO:     Application startup complete.")
	case engines.SGLang:
		l.infof("max_total_num_tokens=%d, chunked_prefill_size=%d, max_running_requests=%d, context_len=%d", live.KVTokens(), live.ChunkedPrefill(), live.MaxRunning(), live.MaxLen())
		l.raw("INFO:     Uvicorn running on " + url + " (Press CTRL+C to quit)")
		l.infof("The server is fired up and ready to roll!")
	default:
		l.infof("Peak memory during memory usage profiling (torch + non-torch): %.2f GiB, available KV cache memory when calculating max tokens: %.2f GiB, fraction is set %g, kv size is %d",
			m.WeightsGiB, m.KVGiB, m.MemFraction, live.KVTokens())
		l.raw("INFO:     Uvicorn running on "+url+" (Press CTRL+C to quit)", "INFO:     Application startup complete.")
	}
}

// prog is the program name argparse and click print.
func (l *engineLog) prog() string {
	switch l.engine {
	case engines.VLLM:
		return "vllm serve"
	case engines.SGLang:
		return "launch_server.py"
	}
	return "trtllm-serve serve"
}

func (l *engineLog) usage() {
	switch l.engine {
	case engines.VLLM:
		l.raw("usage: vllm serve [model_tag] [options]")
	case engines.SGLang:
		l.raw("usage: launch_server.py [-h] --model-path MODEL_PATH [options]")
	default:
		l.raw("Usage: trtllm-serve serve [OPTIONS] MODEL", "Try 'trtllm-serve serve --help' for help.", "")
	}
}

// argError prints a flag value the engine's parser rejects.
func (l *engineLog) argError(err error) error {
	msg := strings.TrimPrefix(err.Error(), string(engines.InvalidConfig)+": ")
	msg = strings.TrimPrefix(msg, l.engine+": ")
	l.usage()
	if l.engine == engines.TRTLLM {
		l.raw("Error: Invalid value: " + msg)
	} else {
		l.raw(l.prog() + ": error: " + msg)
	}
	return err
}

func (l *engineLog) unrecognized(extra []string) error {
	l.usage()
	switch {
	case l.engine != engines.TRTLLM:
		l.raw(l.prog() + ": error: unrecognized arguments: " + strings.Join(extra, " "))
	case strings.HasPrefix(extra[0], "-"):
		l.raw("Error: No such option: " + extra[0])
	default:
		l.raw("Error: Got unexpected extra argument (" + extra[0] + ")")
	}
	return &engines.Failure{Class: engines.InvalidConfig, Message: l.engine + ": unrecognized arguments: " + strings.Join(extra, " ")}
}

// bindError is uvicorn's message for a taken port.
func (l *engineLog) bindError(host string, port int, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		l.raw(fmt.Sprintf("ERROR:    [Errno 98] error while attempting to bind on address ('%s', %d): address already in use", host, port))
		return &engines.Failure{Class: engines.PortConflict, Message: err.Error()}
	}
	l.raw(fmt.Sprintf("OSError: %v", err))
	return fmt.Errorf("sim serve: %w", err)
}

// traceback marks where an engine's Python traceback starts.
var traceback = regexp.MustCompile(`^(Traceback|\s|(\w+\.)*\w+(Error|Exception)\b)`)

// fail prints the failure as the engine would (log lines, then the
// traceback) and makes sure the launcher's classifier reads the same class
// from the log: a simulator message with no engine wording gets the
// engine's generic form.
func (l *engineLog) fail(f *engines.Failure) error {
	src := f.Lines
	if len(src) == 0 {
		src = []string{f.Message}
	}
	i := 0
	for i < len(src) && !traceback.MatchString(src[i]) {
		i++
	}
	var lines []string
	for _, s := range src[:i] {
		lines = append(lines, l.line(s))
	}
	if i == len(src) || !strings.HasPrefix(src[i], "Traceback") {
		lines = append(lines, "Traceback (most recent call last):")
	}
	lines = append(lines, src[i:]...)
	exit := engines.Exit{Exited: true, Code: 1}
	e, _ := engines.Lookup(l.engine, space.Target{}) // a served engine is built in
	if got := engines.Classify(e, engines.Starting, exit, lines); got.Class != f.Class {
		switch f.Class {
		case engines.OOM:
			lines = append(lines, "torch.OutOfMemoryError: CUDA out of memory. "+f.Message)
		default:
			lines = append(lines, "ValueError: "+f.Message)
		}
	}
	l.raw(lines...)
	return f
}
