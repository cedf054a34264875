package enginetest

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/servetune/servetune/bench/benchtest"
)

// GoSim is the engine name that makes Program a vLLM-compatible simulator
// written in Go with conventions of its own, as a declared engine meets
// them: the model as --model (never positional), no --host flag, cobra's
// "unknown flag: --x" on a flag it does not know followed by exit status
// 0, and readiness on /health/ready, which answers 503 {"status":
// "loading"} before the model is loaded while /health answers 200 at once.
// `--version` prints the content of Options.VersionFile (see run).
const GoSim = "gosim"

func goSim(o Options, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gosim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	model := fs.String("model", "", "")
	served := fs.String("served-model-name", "", "")
	port := fs.Int("port", 8000, "")
	seqs := fs.Int("max-num-seqs", 5, "")
	if err := fs.Parse(args); err != nil {
		// cobra's wording, and its exit status for a flag error in
		// several Go servers: 0.
		fmt.Fprintf(stderr, "Error: unknown flag: %s\n", unknownFlag(err))
		return 0
	}
	if *model == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "model parameter is empty")
		return 0
	}
	fmt.Fprintf(stdout, "gosim: loading %s, max-num-seqs=%d\n", *model, *seqs)
	name := *served
	if name == "" {
		name = *model
	}
	return goSimServe(o, name, *port, stdout, stderr)
}

// unknownFlag turns the flag package's "flag provided but not defined:
// -host" into cobra's "--host".
func unknownFlag(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": -"); i >= 0 {
		return "--" + strings.TrimLeft(msg[i+2:], "-")
	}
	return msg
}

func goSimServe(o Options, name string, port int, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		fmt.Fprintf(stderr, "listen tcp :%d: bind: address already in use\n", port)
		return 1
	}
	stream := benchtest.NewServer(benchtest.Config{Flavor: benchtest.VLLM, TTFT: o.TTFT, ITL: o.ITL})
	var ready atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {}) // up, maybe still loading
	mux.HandleFunc("GET /health/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"status":"loading"}`)
			return
		}
		fmt.Fprint(w, `{"status":"ready"}`)
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model"}]}`, name)
	})
	mux.HandleFunc("POST /v1/", func(w http.ResponseWriter, r *http.Request) {
		if !ready.Load() {
			http.Error(w, `{"error":"model is loading"}`, http.StatusServiceUnavailable)
			return
		}
		stream.Config.Handler.ServeHTTP(w, r)
	})
	go func() { _ = http.Serve(ln, mux) }()
	time.Sleep(o.StartupDelay) // the fake's model load, not test timing
	ready.Store(true)
	fmt.Fprintln(stdout, "gosim: model loaded, ready")
	<-make(chan struct{})
	return 0
}
