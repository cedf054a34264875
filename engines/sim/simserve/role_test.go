package simserve

import (
	"context"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// pdDeployment renders a 2-prefill, 1-decode deployment with the
// engines' renderer, as the launcher would run it.
func pdDeployment(t *testing.T, engine string) []engines.PDProcess {
	t.Helper()
	cfg := space.Config{engines.KnobEngine: engine, engines.KnobDisaggregation: engines.Disaggregated,
		engines.KnobPrefillInstances: int64(2), engines.KnobDecodeInstances: int64(1)}
	procs, err := engines.RenderPD(cfg, space.Target{Model: "Qwen/Qwen3-8B", Engine: engine}, engines.PDPorts{})
	if err != nil {
		t.Fatal(err)
	}
	return procs
}

// The simulated servers take their role from exactly the flags the
// adapters render, and the simulated router reads the rendered router
// command's servers.
func TestSimTakesTheRenderedDeployment(t *testing.T) {
	for _, c := range []struct {
		engine  string
		prefill []string
	}{
		{engines.SGLang, []string{"http://127.0.0.1:30001", "http://127.0.0.1:30002"}},
		{engines.VLLM, []string{"http://127.0.0.1:8001", "http://127.0.0.1:8002"}},
	} {
		t.Run(c.engine, func(t *testing.T) {
			procs := pdDeployment(t, c.engine)
			for _, pr := range procs[:len(procs)-1] {
				p, err := engines.ParseArgs(c.engine, pr.Command.Argv, engines.Latest())
				if err != nil {
					t.Fatal(err)
				}
				if _, unknown, err := readExtra(c.engine, p.Extra); err != nil || len(unknown) > 0 {
					t.Fatalf("%s: %v, unknown %v", pr.Name(), err, unknown)
				}
				role, err := roleOf(c.engine, p.Extra, "")
				if err != nil || role != pr.Role {
					t.Fatalf("%s: role %q, %v", pr.Name(), role, err)
				}
			}
			router := procs[len(procs)-1].Command
			a, err := parseRouterArgs(c.engine, router.Argv[router.Program:])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.prefill, c.prefill) || len(a.decode) != 1 || a.port == 0 {
				t.Fatalf("router %+v", a)
			}
		})
	}
}

func TestRoleRefusals(t *testing.T) {
	for _, c := range []struct {
		engine, asked, want string
		extra               []string
	}{
		{engines.SGLang, "", "invalid choice: 'both'", []string{"--disaggregation-mode=both"}},
		{engines.SGLang, engines.RoleDecode, "--role decode, but the engine's flags make it a prefill server", []string{"--disaggregation-mode", "prefill"}},
		{engines.VLLM, "", "Unsupported kv_role: kv_any", []string{`--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_any"}`}},
	} {
		if _, err := roleOf(c.engine, c.extra, c.asked); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.engine, c.extra, err, c.want)
		}
	}
	role, err := roleOf(engines.VLLM, []string{`--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_both"}`}, engines.RoleDecode)
	if err != nil || role != engines.RoleDecode {
		t.Errorf("kv_both with --role decode: %q, %v", role, err)
	}
}

// A simulated vLLM deployment on loopback: the proxy sends each request
// to the prefill server as one token and streams the decode server's
// answer back; bench through the proxy measures every token.
func TestSimulatedVLLMDeploymentServesThroughTheProxy(t *testing.T) {
	args := func(role string) []string {
		return []string{"Qwen/Qwen3-8B", `--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"` + role + `"}`}
	}
	synctest.Test(t, func(t *testing.T) {
		n := newMemNet()
		serveOn(t, n, 8100, Options{Engine: engines.VLLM, GPU: "H100", GPUs: 1, Speed: 50, Startup: 2 * time.Second, Args: args("kv_producer")})
		serveOn(t, n, 8200, Options{Engine: engines.VLLM, GPU: "H100", GPUs: 1, Speed: 50, Startup: 2 * time.Second, Args: args("kv_consumer")})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- ServeRouter(ctx, RouterOptions{Engine: engines.VLLM, listen: n.Listen, dial: n.DialContext, Args: []string{"--host", "127.0.0.1", "--port", "8000",
				"--prefiller-hosts", "127.0.0.1", "--prefiller-ports", "8100", "--decoder-hosts", "127.0.0.1", "--decoder-ports", "8200"}})
		}()
		client := n.Client()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
			client.CloseIdleConnections()
		}()
		synctest.Wait() // the proxy listens
		base := "http://127.0.0.1:8000"
		if resp, err := client.Get(base + "/healthcheck"); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("proxy /healthcheck: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
		p := bench.Profile{Name: "t", InputLen: 512, OutputLen: 24, NumPrompts: 6, MaxConcurrency: 3, RequestRate: math.Inf(1), Seed: 1}
		res, err := bench.Run(context.Background(), bench.Client{BaseURL: base, Model: "Qwen/Qwen3-8B", HTTPClient: client}, p, bench.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Metrics.Completed != 6 || res.Metrics.Failed != 0 || res.Metrics.TotalOutput != 6*24 {
			t.Fatalf("through the proxy: %+v", res.Metrics)
		}
	})
}
