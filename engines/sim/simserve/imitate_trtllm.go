package simserve

import (
	"net/http"
	"strings"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// trtllmImitation is `trtllm-serve serve` (click, not argparse).
type trtllmImitation struct{ openAIChunks }

func (trtllmImitation) name() string { return engines.TRTLLM }

func (trtllmImitation) flags(fs map[string]extraFlag) {
	fs["--max_seq_len"] = extraFlag{value: true, set: setMaxLen}
	noops(fs, true, "--reasoning_parser", "--tool_parser", "--chat_template", "--tokenizer", "--custom_tokenizer",
		"--revision", "--log_level", "--num_postprocess_workers", "--backend", "--max_beam_width",
		"--pipeline_parallel_size", "--pp_size", "--gpus_per_node", "--otlp_traces_endpoint",
		"--media_io_kwargs", "--server_role", "--metadata_server_config_file", "--disagg_cluster_uri")
	noops(fs, false, "--trust_remote_code", "--fail_fast_on_attention_window_too_large", "--grpc")
}

// roleFlag: servetune serves no TRT-LLM deployment disaggregated.
func (trtllmImitation) roleFlag() string { return "" }

func (trtllmImitation) role(string, string) (string, error) { return "", nil }

func (trtllmImitation) logPrefix(now time.Time) string {
	return "[" + now.Format("01/02/2006-15:04:05") + "] [TRT-LLM] [I] "
}

func (trtllmImitation) banner(l *engineLog, o Options, cfg space.Config, _ string) {
	l.infof("TensorRT-LLM version: sim (servetune, speed ×%g); args: %s", o.Speed, strings.Join(o.Args, " "))
	l.infof("knobs with the extra options YAML applied: %s", cfg.Key())
}

func (trtllmImitation) ready(l *engineLog, live *sim.Live, url string, _ time.Duration) {
	m := live.Memory()
	l.infof("Peak memory during memory usage profiling (torch + non-torch): %.2f GiB, available KV cache memory when calculating max tokens: %.2f GiB, fraction is set %g, kv size is %d",
		m.WeightsGiB, m.KVGiB, m.MemFraction, live.KVTokens())
	l.raw("INFO:     Uvicorn running on "+url+" (Press CTRL+C to quit)", "INFO:     Application startup complete.")
}

func (trtllmImitation) prog() string { return "trtllm-serve serve" }

func (trtllmImitation) usage() []string {
	return []string{"Usage: trtllm-serve serve [OPTIONS] MODEL", "Try 'trtllm-serve serve --help' for help.", ""}
}

func (trtllmImitation) argError(msg string) []string { return []string{"Error: Invalid value: " + msg} }

func (trtllmImitation) unrecognized(extra []string) []string {
	if strings.HasPrefix(extra[0], "-") {
		return []string{"Error: No such option: " + extra[0]}
	}
	return []string{"Error: Got unexpected extra argument (" + extra[0] + ")"}
}

// unavailable: TRT-LLM's /health explains itself while it loads.
func (trtllmImitation) unavailable(w http.ResponseWriter) {
	http.Error(w, "LLM is unavailable. Please check the server logs for more details.", http.StatusServiceUnavailable)
}

func (trtllmImitation) owner() string { return "tensorrt_llm" }

// completionTokens: TRT-LLM runs /v1/completions to EOS too.
func (trtllmImitation) completionTokens() int { return defaultChatTokens }

// usageByDefault: stream_options present turns include_usage on.
func (trtllmImitation) usageByDefault() bool { return true }

// usageObject: TRT-LLM's usage chunk is a chat.completion.chunk even on
// /v1/completions.
func (trtllmImitation) usageObject(*chunker) string { return "chat.completion.chunk" }
