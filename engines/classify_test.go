package engines

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// classifyBuiltin is Classify for the built-in engine named engine.
func classifyBuiltin(t testing.TB, engine string, stage Stage, exit Exit, tail []string) *Failure {
	t.Helper()
	e, ok := Lookup(engine, space.Target{})
	if !ok {
		t.Fatalf("no built-in engine %q", engine)
	}
	return Classify(e, stage, exit, tail)
}

func TestClassify(t *testing.T) {
	died := Exit{Exited: true, Code: 1}
	cases := []struct {
		engine string
		stage  Stage
		exit   Exit
		tail   []string
		want   Class
	}{
		{"vllm", Starting, died, []string{"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."}, OOM},
		{"vllm", Starting, died, []string{"ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.50 GiB)."}, OOM},
		{"vllm", Starting, died, []string{"ValueError: Free memory on device cuda:0 (10.2/79.2 GiB) on startup is less than desired GPU memory utilization (0.9, 71.3 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."}, OOM},
		{"vllm", Starting, died, []string{"RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine."}, OOM},
		{"vllm", Starting, died, []string{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free.", "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"}, OOM},
		{"vllm", Starting, died, []string{"ValueError: Total number of attention heads (64) must be divisible by tensor parallel size (3)."}, InvalidConfig},
		{"vllm", Starting, died, []string{"ValueError: max_num_batched_tokens (512) must be greater than or equal to max_num_seqs (1024)."}, InvalidConfig},
		{"vllm", Starting, Exit{Exited: true, Code: 2}, []string{"usage: vllm serve [-h] [--model MODEL]", "vllm serve: error: unrecognized arguments: --tp-size=8"}, InvalidConfig},
		{"vllm", Starting, Exit{Exited: true, Code: 2}, []string{"vllm serve: error: argument --kv-cache-dtype: invalid choice: 'fp4' (choose from auto, fp8)"}, InvalidConfig},
		{"vllm", Starting, died, []string{"ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 8000): address already in use"}, PortConflict},
		{"sglang", Starting, died, []string{"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.95"}, OOM},
		{"sglang", Starting, died, []string{"Exception: Capture cuda graph failed: CUDA out of memory.", "Possible solutions:", "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)"}, OOM},
		{"sglang", Starting, died, []string{"Traceback (most recent call last):", "AssertionError"}, InvalidConfig},
		{"sglang", Starting, died, []string{"AssertionError: chunked_prefill_size must be divisible by page_size"}, InvalidConfig},
		{"sglang", Starting, died, []string{"Scheduler hit an exception: Traceback", "ValueError: User-specified context_length (262144) is greater than the derived context_length (40960)."}, InvalidConfig},
		{"trtllm", Starting, died, []string{"Executor worker initialization error: Traceback", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB.", "RuntimeError: Executor worker returned error"}, OOM},
		{"trtllm", Starting, died, []string{"ValueError: Invalid decoding type: Foo"}, InvalidConfig},
		{"trtllm", Starting, died, []string{"pydantic_core._pydantic_core.ValidationError: 1 validation error for TorchLlmArgs", "attn_backendd", "  Extra inputs are not permitted"}, InvalidConfig},
		{"trtllm", Starting, Exit{Exited: true, Code: 2}, []string{"Error: No such option: --tp-size"}, InvalidConfig},
		{"vllm", Starting, Exit{TimedOut: true}, []string{"INFO Loading weights took 900.1 seconds"}, StartupTimeout},
		{"vllm", Serving, died, []string{"RuntimeError: CUDA error: an illegal memory access was encountered"}, CrashedDuringBenchmark},
		{"vllm", Serving, died, []string{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB."}, OOM},
		{"vllm", Serving, died, []string{"ValueError: something odd"}, CrashedDuringBenchmark},
		{"sglang", Starting, Exit{Exited: true, Signal: "killed", Code: -1}, []string{"Loading safetensors checkpoint shards: 50%"}, Unknown},
		{"sglang", Starting, Exit{Exited: true, Code: 139}, []string{"Fatal Python error: Segmentation fault"}, Unknown},
	}
	for i, c := range cases {
		f := classifyBuiltin(t, c.engine, c.stage, c.exit, c.tail)
		if f.Class != c.want {
			t.Errorf("case %d (%s): Classify = %s (%s); want %s", i, c.engine, f.Class, f.Message, c.want)
		}
		if c.want == OOM || c.want == InvalidConfig || c.want == PortConflict {
			if len(f.Lines) == 0 {
				t.Errorf("case %d: no deciding lines kept", i)
			}
		}
		if !strings.Contains(f.Message, c.engine) {
			t.Errorf("case %d: message %q does not name the engine", i, f.Message)
		}
	}
}
