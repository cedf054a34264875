package enginetest

import (
	"fmt"

	"github.com/servetune/servetune/engines"
)

// engineLines are the messages each real engine prints (docs/engines.md).
type engineLines struct {
	starting, ready     string
	oom, invalid, crash []string
}

func lines(engine string, p engines.Parsed) engineLines {
	crash := []string{
		"RuntimeError: CUDA error: an illegal memory access was encountered",
		"CUDA kernel errors might be asynchronously reported at some other API call.",
	}
	switch engine {
	case engines.VLLM:
		return engineLines{
			starting: fmt.Sprintf("INFO 05-29 12:00:00 [api_server.py:1] Starting vLLM server on http://%s:%d", p.Host, p.Port),
			ready:    "INFO:     Application startup complete.",
			oom: []string{
				"Traceback (most recent call last):",
				"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
				"RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
			},
			invalid: []string{"ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3)."},
			crash:   crash,
		}
	case engines.SGLang:
		return engineLines{
			starting: fmt.Sprintf("[2026-05-19 12:00:00] server_args=ServerArgs(model_path='%s', host='%s', port=%d)", p.Model, p.Host, p.Port),
			ready:    "[2026-05-19 12:00:10] The server is fired up and ready to roll!",
			oom: []string{
				"[2026-05-19 12:00:05] Scheduler hit an exception: Traceback (most recent call last):",
				"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.95",
			},
			invalid: []string{"AssertionError: chunked_prefill_size must be divisible by page_size"},
			crash:   crash,
		}
	default:
		return engineLines{
			starting: "[TensorRT-LLM] TensorRT-LLM version: 1.3.0rc3",
			ready:    fmt.Sprintf("INFO:     Uvicorn running on http://%s:%d (Press CTRL+C to quit)", p.Host, p.Port),
			oom: []string{
				"Executor worker initialization error: Traceback (most recent call last):",
				"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free.",
				"RuntimeError: Executor worker returned error",
			},
			invalid: []string{"ValueError: Invalid decoding type: Medusa2"},
			crash:   crash,
		}
	}
}
