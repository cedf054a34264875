package simserve

import (
	"fmt"
	"net/http"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// sglangImitation is sglang.launch_server and sgl-router.
type sglangImitation struct{}

func (sglangImitation) name() string { return engines.SGLang }

func (sglangImitation) flags(fs map[string]extraFlag) {
	// Its role flags: their values change nothing but the role.
	noops(fs, true, "--disaggregation-mode", "--disaggregation-transfer-backend", "--disaggregation-bootstrap-port",
		"--disaggregation-ib-device")
	fs["--context-length"] = extraFlag{value: true, set: setMaxLen}
	noops(fs, true, "--reasoning-parser", "--tool-call-parser", "--chat-template", "--tokenizer-path",
		"--revision", "--download-dir", "--load-format", "--dtype", "--quantization", "--random-seed",
		"--log-level", "--api-key", "--schedule-policy", "--schedule-conservativeness", "--page-size",
		"--load-balance-method", "--max-prefill-tokens", "--pipeline-parallel-size", "--pp-size",
		"--moe-runner-backend", "--prefill-attention-backend", "--decode-attention-backend",
		"--torch-compile-max-bs", "--piecewise-cuda-graph-max-tokens", "--watchdog-timeout", "--dist-timeout")
	noops(fs, false, "--trust-remote-code", "--skip-server-warmup", "--enable-cache-report",
		"--stream-response-default-include-usage", "--enable-metrics", "--log-requests", "--enable-dp-lm-head",
		"--disable-cuda-graph-padding", "--disable-overlap-schedule", "--enable-two-batch-overlap",
		"--enable-mixed-chunk", "--disable-piecewise-cuda-graph", "--enable-piecewise-cuda-graph")
}

func (sglangImitation) roleFlag() string { return "--disaggregation-mode" }

// role is server_args.py's --disaggregation-mode choices.
func (sglangImitation) role(v, _ string) (string, error) {
	switch v {
	case "null":
		return "", nil
	case engines.RolePrefill, engines.RoleDecode:
		return v, nil
	}
	return "", fmt.Errorf("sglang: argument --disaggregation-mode: invalid choice: '%s' (choose from 'null', 'prefill', 'decode')", v)
}

func (sglangImitation) logPrefix(now time.Time) string {
	return "[" + now.Format("2006-01-02 15:04:05") + "] "
}

func (sglangImitation) banner(l *engineLog, o Options, cfg space.Config, served string) {
	l.infof("server_args=ServerArgs(model_path=%q, served_model_name=%q, %s) [servetune sim, speed ×%g]", served, served, cfg.Key(), o.Speed)
}

func (sglangImitation) ready(l *engineLog, live *sim.Live, url string, _ time.Duration) {
	l.infof("max_total_num_tokens=%d, chunked_prefill_size=%d, max_running_requests=%d, context_len=%d", live.KVTokens(), live.ChunkedPrefill(), live.MaxRunning(), live.MaxLen())
	l.raw("INFO:     Uvicorn running on " + url + " (Press CTRL+C to quit)")
	l.infof("The server is fired up and ready to roll!")
}

func (sglangImitation) prog() string { return "launch_server.py" }

func (sglangImitation) usage() []string {
	return []string{"usage: launch_server.py [-h] --model-path MODEL_PATH [options]"}
}

func (im sglangImitation) argError(msg string) []string { return argparseError(im, msg) }

func (im sglangImitation) unrecognized(extra []string) []string {
	return argparseUnrecognized(im, extra)
}

func (sglangImitation) unavailable(w http.ResponseWriter) {
	w.WriteHeader(http.StatusServiceUnavailable)
}

func (sglangImitation) owner() string { return engines.SGLang }

func (sglangImitation) completionTokens() int { return defaultCompletionTokens }

func (sglangImitation) usageByDefault() bool { return false }

// SGLang's stream puts no finish_reason on the last token: an empty
// finish chunk follows it.
func (sglangImitation) finishOnLast() bool { return false }

func (sglangImitation) textChunk(c *chunker, text, _ string) []byte {
	return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"text":%q,"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`, c.head(c.object()), text)
}

func (sglangImitation) finishChunk(c *chunker) []byte { return c.sglangFinish() }

func (c *chunker) sglangFinish() []byte {
	if c.chat {
		return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"length","matched_stop":null}]}`, c.head(c.object()))
	}
	return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":null}`, c.head(c.object()))
}

func (sglangImitation) usageObject(c *chunker) string { return c.object() }

// routerRoutes: sgl-router (v0.5.6's server.rs:656, :673): /health, and
// /workers listing every server with its health.
func (sglangImitation) routerRoutes(rt *router, mux *http.ServeMux) {
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /workers", rt.workers)
}
