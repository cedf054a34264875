package simserve

import (
	"fmt"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
)

// extraFlag is an engine argument outside the knob table.
type extraFlag struct {
	value bool // takes a value
	// set records what the flag changes in the simulation; nil for a
	// no-op (logging, parsers, tokenizer, paths: no effect on timing).
	set func(l *sim.Launch, v string) error
}

// noop flags take the listed arity and change nothing simulated.
func noops(fs map[string]extraFlag, value bool, names ...string) {
	for _, n := range names {
		fs[n] = extraFlag{value: value}
	}
}

// extraFlags are the imitated engine's (newest version's) arguments the
// knob table does not read; docs/sim.md lists them.
func extraFlags(engine string) map[string]extraFlag {
	fs := map[string]extraFlag{}
	pdFlags(engine, fs) // role.go
	switch engine {
	case engines.VLLM:
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
	case engines.SGLang:
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
	case engines.TRTLLM:
		fs["--max_seq_len"] = extraFlag{value: true, set: setMaxLen}
		noops(fs, true, "--reasoning_parser", "--tool_parser", "--chat_template", "--tokenizer", "--custom_tokenizer",
			"--revision", "--log_level", "--num_postprocess_workers", "--backend", "--max_beam_width",
			"--pipeline_parallel_size", "--pp_size", "--gpus_per_node", "--otlp_traces_endpoint",
			"--media_io_kwargs", "--server_role", "--metadata_server_config_file", "--disagg_cluster_uri")
		noops(fs, false, "--trust_remote_code", "--fail_fast_on_attention_window_too_large", "--grpc")
	}
	return fs
}

// readExtra applies the arguments ParseArgs left over; those the engine
// does not know are returned as it would report them.
func readExtra(engine string, extra []string) (sim.Launch, []string, error) {
	var l sim.Launch
	var unknown []string
	fs := extraFlags(engine)
	for i := 0; i < len(extra); i++ {
		name, val, hasEq := strings.Cut(extra[i], "=")
		f, ok := fs[name]
		if !ok {
			unknown = append(unknown, extra[i])
			continue
		}
		if f.value && !hasEq {
			if i+1 >= len(extra) {
				return l, nil, fmt.Errorf("%s: argument %s: expected one argument", engine, name)
			}
			i++
			val = extra[i]
		}
		if f.set != nil {
			if err := f.set(&l, val); err != nil {
				return l, nil, fmt.Errorf("%s: argument %s: %w", engine, name, err)
			}
		}
	}
	return l, unknown, nil
}

func setMaxLen(l *sim.Launch, v string) error {
	if v == "auto" || v == "-1" {
		l.MaxModelLen = -1
		return nil
	}
	n, err := humanInt(v)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("invalid value %q: must be positive", v)
	}
	l.MaxModelLen = n
	return nil
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

// humanInt reads vLLM's human-readable ints (engines.HumanInt, which
// the vLLM adapter's parser uses too).
func humanInt(v string) (int, error) { return engines.HumanInt(v) }

// launchFailure wraps an argument error as the engine's refusal.
func launchFailure(err error) error {
	return &engines.Failure{Class: engines.InvalidConfig, Message: err.Error()}
}
