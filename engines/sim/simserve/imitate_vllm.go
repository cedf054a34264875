package simserve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// vllmImitation is `vllm serve` (newest version) and its
// disaggregation proxy (toy_proxy_server.py).
type vllmImitation struct{ openAIChunks }

func (vllmImitation) name() string { return engines.VLLM }

func (vllmImitation) flags(fs map[string]extraFlag) {
	noops(fs, true, "--kv-transfer-config") // its role flag
	fs["--max-model-len"] = extraFlag{value: true, set: setMaxLen}
	fs["--performance-mode"] = extraFlag{value: true, set: setPerformanceMode}
	noops(fs, true, "--reasoning-parser", "--tool-call-parser", "--chat-template", "--tokenizer", "--revision",
		"--download-dir", "--load-format", "--dtype", "--quantization", "-q", "--seed", "--uvicorn-log-level",
		"--api-key", "--root-path", "--uds", "--scheduling-policy", "--block-size", "--max-logprobs",
		"--pipeline-parallel-size", "-pp", "--data-parallel-backend", "--api-server-count", "-asc",
		"--stream-interval", "--prefix-caching-hash-algo", "--hf-overrides", "--generation-config",
		"--override-generation-config", "--limit-mm-per-prompt", "--mm-processor-kwargs", "--allowed-origins",
		"--middleware", "--response-role", "--ssl-keyfile", "--ssl-certfile", "--config")
	noops(fs, false, "--trust-remote-code", "--no-trust-remote-code", "--enable-auto-tool-choice",
		"--disable-log-requests", "--enable-log-requests", "--disable-log-stats", "--disable-uvicorn-access-log",
		"--enable-force-include-usage", "--disable-fastapi-docs", "--enable-prompt-tokens-details",
		"--async-scheduling", "--no-async-scheduling", "--enable-server-load-tracking")
}

func setPerformanceMode(l *sim.Launch, v string) error {
	switch v {
	case "balanced", "interactivity":
	case "throughput":
		l.ThroughputMode = true
	default:
		return fmt.Errorf("invalid choice: %q (choose from 'balanced', 'interactivity', 'throughput')", v)
	}
	return nil
}

func (vllmImitation) roleFlag() string { return "--kv-transfer-config" }

// role reads kv_role from --kv-transfer-config (vllm/config/
// kv_transfer.py's KVRole).
func (vllmImitation) role(v, asked string) (string, error) {
	var c struct {
		Connector string `json:"kv_connector"`
		Role      string `json:"kv_role"`
	}
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		return "", fmt.Errorf("vllm: argument --kv-transfer-config: %v", err)
	}
	switch c.Role {
	case "kv_producer":
		return engines.RolePrefill, nil
	case "kv_consumer":
		return engines.RoleDecode, nil
	case "kv_both":
		return asked, nil
	}
	return "", fmt.Errorf("vllm: ValueError: Unsupported kv_role: %s. Supported roles are ('kv_producer', 'kv_consumer', 'kv_both')", c.Role)
}

func (vllmImitation) logPrefix(now time.Time) string {
	return "INFO " + now.Format("01-02 15:04:05") + " [sim] "
}

func (vllmImitation) banner(l *engineLog, o Options, _ space.Config, _ string) {
	l.infof("vLLM API server version sim (servetune, speed ×%g)", o.Speed)
	l.infof("non-default args: %s", strings.Join(o.Args, " "))
}

func (vllmImitation) ready(l *engineLog, live *sim.Live, url string, startup time.Duration) {
	l.infof("GPU KV cache size: %d tokens", live.KVTokens())
	l.infof("Maximum concurrency for %d tokens per request: %.2fx", live.MaxLen(), float64(live.KVTokens())/float64(max(live.MaxLen(), 1)))
	l.infof("init engine (profile, create kv cache, warmup model) took %.2f seconds", startup.Seconds())
	l.infof("Starting vLLM server on %s", url)
	l.infof("Available routes are:")
	for _, r := range []string{"/health", "/v1/models", "/v1/completions", "/v1/chat/completions"} {
		l.infof("Route: %s, Methods: %s", r, map[bool]string{true: "POST", false: "GET"}[strings.HasPrefix(r, "/v1/c")])
	}
	l.raw("INFO:     Application startup complete.")
}

func (vllmImitation) prog() string { return "vllm serve" }

func (vllmImitation) usage() []string { return []string{"usage: vllm serve [model_tag] [options]"} }

func (im vllmImitation) argError(msg string) []string { return argparseError(im, msg) }

func (im vllmImitation) unrecognized(extra []string) []string { return argparseUnrecognized(im, extra) }

func (vllmImitation) unavailable(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) }

func (vllmImitation) owner() string { return engines.VLLM }

func (vllmImitation) completionTokens() int { return defaultCompletionTokens }

func (vllmImitation) usageByDefault() bool { return false }

// routerRoutes: toy_proxy_server.py's health check lists the clients it
// built from its arguments.
func (vllmImitation) routerRoutes(rt *router, mux *http.ServeMux) {
	mux.HandleFunc("GET /healthcheck", rt.jsonHandler(map[string]any{"status": "ok",
		"prefill_instances": len(rt.args.prefill), "decode_instances": len(rt.args.decode)}))
}
