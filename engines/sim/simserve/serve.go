package simserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
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
	_, ok := imitationOf(engine)
	return ok
}

// Serve runs the simulated engine until ctx ends (SIGTERM), then returns
// nil. A command line or config the engine would refuse prints the
// engine's lines to o.Log and returns the *engines.Failure the launcher
// will classify from them.
func Serve(ctx context.Context, o Options) error {
	im, ok := imitationOf(o.Engine)
	if !ok {
		return fmt.Errorf("sim serve: engine %q is not served (%s)", o.Engine, imitated())
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Speed <= 0 {
		o.Speed = 1
	}
	lg := &engineLog{im: im, w: o.Log}
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
	srv := &server{im: im, served: served, checkpoint: p.Model, role: role, speed: o.Speed}
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

// imitated lists the imitated engines, for messages.
func imitated() string {
	var ns []string
	for _, im := range imitations() {
		ns = append(ns, im.name())
	}
	return strings.Join(ns, ", ")
}

// engineLog writes in one engine's log style (its imitation's).
type engineLog struct {
	im imitation
	w  io.Writer
}

func (l *engineLog) infof(format string, a ...any) {
	fmt.Fprintln(l.w, l.line(fmt.Sprintf(format, a...)))
}

// line prefixes s the way the engine's Python logger does.
func (l *engineLog) line(s string) string { return l.im.logPrefix(time.Now()) + s }

// raw writes lines as the engine's traceback prints them: classifier
// patterns anchor on some of them.
func (l *engineLog) raw(lines ...string) {
	for _, s := range lines {
		fmt.Fprintln(l.w, s)
	}
}

func (l *engineLog) banner(o Options, cfg space.Config, served string) {
	l.im.banner(l, o, cfg, served)
}

func (l *engineLog) ready(live *sim.Live, host string, port int, startup time.Duration) {
	for _, s := range live.PlanLog() {
		l.infof("%s", s)
	}
	l.im.ready(l, live, "http://"+net.JoinHostPort(host, strconv.Itoa(port)), startup)
}

// argError prints a flag value the engine's parser rejects.
func (l *engineLog) argError(err error) error {
	msg := strings.TrimPrefix(err.Error(), string(engines.InvalidConfig)+": ")
	msg = strings.TrimPrefix(msg, l.im.name()+": ")
	l.raw(l.im.usage()...)
	l.raw(l.im.argError(msg)...)
	return err
}

func (l *engineLog) unrecognized(extra []string) error {
	l.raw(l.im.usage()...)
	l.raw(l.im.unrecognized(extra)...)
	return &engines.Failure{Class: engines.InvalidConfig, Message: l.im.name() + ": unrecognized arguments: " + strings.Join(extra, " ")}
}

// argparseError and argparseUnrecognized are Python argparse's
// refusals (vLLM, SGLang).
func argparseError(im imitation, msg string) []string { return []string{im.prog() + ": error: " + msg} }

func argparseUnrecognized(im imitation, extra []string) []string {
	return []string{im.prog() + ": error: unrecognized arguments: " + strings.Join(extra, " ")}
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
	e, _ := engines.Lookup(l.im.name(), space.Target{}) // a served engine is built in
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
