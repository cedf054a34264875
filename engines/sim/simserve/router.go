package simserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/servetune/servetune/engines"
)

// RouterOptions configure a simulated router of a disaggregated
// deployment.
type RouterOptions struct {
	// Engine is the engine whose router is imitated: sglang
	// (sglang_router.launch_router) or vllm (toy_proxy_server.py).
	Engine string
	// Args are the router's arguments, program words optional.
	Args []string
	Log  io.Writer

	// listen and dial are the router's network; nil is the host's. Tests
	// pass an in-memory one (see Options.listen).
	listen listenFunc
	dial   func(ctx context.Context, network, address string) (net.Conn, error)
}

// routerArgs is what a router's command line says.
type routerArgs struct {
	host            string
	port            int
	prefill, decode []string // base URLs
}

// ServeRouter runs the router until ctx ends: each completion goes to a
// prefill server (round robin) as a one-token, non-streaming request,
// then, once it answered, to a decode server (round robin), whose answer
// streams back — vLLM's proxy's sequence; SGLang's router sends both at
// once and lets the decode server wait on the bootstrap, which the
// simulated decode server's transfer wait stands for.
func ServeRouter(ctx context.Context, o RouterOptions) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	a, err := parseRouterArgs(o.Engine, o.Args)
	if err != nil {
		fmt.Fprintln(o.Log, err)
		return &engines.Failure{Class: engines.InvalidConfig, Message: err.Error()}
	}
	ln, err := o.listen.bind(net.JoinHostPort(a.host, strconv.Itoa(a.port)))
	if err != nil {
		fmt.Fprintf(o.Log, "ERROR: [Errno 98] error while attempting to bind on address ('%s', %d): address already in use\n", a.host, a.port)
		return &engines.Failure{Class: engines.PortConflict, Message: err.Error()}
	}
	rt := &router{args: a, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024, DialContext: o.dial}}}
	hs := &http.Server{Handler: rt.routes(o.Engine), ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	defer shutdown(hs)
	fmt.Fprintf(o.Log, "[sim] %s PD router on http://%s: prefill %s, decode %s\n", o.Engine, ln.Addr(), strings.Join(a.prefill, " "), strings.Join(a.decode, " "))
	select {
	case <-ctx.Done():
		return nil
	case err := <-serveErr:
		return fmt.Errorf("sim router: %w", err)
	}
}

// parseRouterArgs reads the router's flags as rendered (engines'
// pd_sglang.go and pd_vllm.go); extra flags either router takes
// (--mini-lb, --policy P, …) are accepted and ignored.
func parseRouterArgs(engine string, args []string) (routerArgs, error) {
	a := routerArgs{host: "127.0.0.1"}
	lists := map[string][]string{}
	for i := 0; i < len(args); {
		name := args[i]
		j := i + 1 // the words up to the next flag are its values
		for j < len(args) && !strings.HasPrefix(args[j], "--") {
			j++
		}
		vals := args[i+1 : j]
		i = j
		switch name {
		case "--host":
			a.host = first(vals...)
		case "--port":
			p, err := strconv.Atoi(first(vals...))
			if err != nil {
				return a, fmt.Errorf("%s router: argument --port: invalid int value", engine)
			}
			a.port = p
		case "--prefill":
			a.prefill = append(a.prefill, first(vals...)) // URL [BOOTSTRAP_PORT]
		case "--decode":
			a.decode = append(a.decode, first(vals...))
		default:
			lists[strings.TrimSuffix(name, "s")] = vals // vLLM's --prefiller-host(s) …
		}
	}
	a.prefill = append(a.prefill, hostPorts(lists["--prefiller-host"], lists["--prefiller-port"])...)
	a.decode = append(a.decode, hostPorts(lists["--decoder-host"], lists["--decoder-port"])...)
	if len(a.prefill) == 0 || len(a.decode) == 0 || a.port == 0 {
		return a, fmt.Errorf("%s router: needs --port, at least one prefill and one decode server", engine)
	}
	return a, nil
}

func hostPorts(hosts, ports []string) []string {
	var out []string
	for i := 0; i < len(hosts) && i < len(ports); i++ {
		out = append(out, "http://"+net.JoinHostPort(hosts[i], ports[i]))
	}
	return out
}

type router struct {
	args       routerArgs
	client     *http.Client
	next, nDec atomic.Uint64
}

func (rt *router) routes(engine string) http.Handler {
	mux := http.NewServeMux()
	im, _ := imitationOf(engine)
	if ri, ok := im.(routerImitation); ok {
		ri.routerRoutes(rt, mux)
	} else {
		sglangImitation{}.routerRoutes(rt, mux) // the router servetune renders elsewhere
	}
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) { rt.forward(w, r, rt.args.decode[0], nil) })
	mux.HandleFunc("POST /v1/completions", rt.complete)
	mux.HandleFunc("POST /v1/chat/completions", rt.complete)
	return mux
}

// workers is sgl-router's GET /workers answer: each server with
// is_healthy from its own /health now (the real router health-checks
// its workers in the background).
func (rt *router) workers(w http.ResponseWriter, r *http.Request) {
	var ws []map[string]any
	for _, side := range []struct {
		kind string
		urls []string
	}{{"prefill", rt.args.prefill}, {"decode", rt.args.decode}} {
		for _, u := range side.urls {
			ws = append(ws, map[string]any{"id": u, "url": u, "worker_type": side.kind, "is_healthy": rt.healthy(r.Context(), u)})
		}
	}
	rt.jsonHandler(map[string]any{"workers": ws, "total": len(ws),
		"stats": map[string]int{"prefill_count": len(rt.args.prefill), "decode_count": len(rt.args.decode)}})(w, r)
}

// healthy reports whether the server at base answers /health within a
// second.
func (rt *router) healthy(ctx context.Context, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/health", nil)
	if err != nil {
		return false
	}
	resp, err := rt.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// jsonHandler answers GET with v as JSON.
func (rt *router) jsonHandler(v any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
}

// complete runs one request through a prefill, then a decode server.
func (rt *router) complete(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	pre, err := prefillBody(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", "invalid JSON: "+err.Error())
		return
	}
	p := rt.args.prefill[int(rt.next.Add(1)-1)%len(rt.args.prefill)]
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, p+r.URL.Path, bytes.NewReader(pre))
	req.Header.Set("Content-Type", "application/json")
	resp, err := rt.client.Do(req)
	if err != nil {
		writeError(w, http.StatusBadGateway, "BadGatewayError", "prefill server "+p+": "+err.Error())
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		writeError(w, resp.StatusCode, "PrefillError", fmt.Sprintf("prefill server %s answered %d", p, resp.StatusCode))
		return
	}
	d := rt.args.decode[int(rt.nDec.Add(1)-1)%len(rt.args.decode)]
	rt.forward(w, r, d, body)
}

// prefillBody is the request a prefill server gets: one token, whole.
func prefillBody(body []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	m["max_tokens"], m["stream"] = 1, false
	if _, ok := m["max_completion_tokens"]; ok {
		m["max_completion_tokens"] = 1
	}
	delete(m, "stream_options")
	return json.Marshal(m)
}

// forward sends r (with body, when not nil) to base and streams the
// answer back, flushing as it arrives.
func (rt *router) forward(w http.ResponseWriter, r *http.Request, base string, body []byte) {
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.Path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := rt.client.Do(req)
	if err != nil {
		writeError(w, http.StatusBadGateway, "BadGatewayError", "decode server "+base+": "+err.Error())
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil || rc.Flush() != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
