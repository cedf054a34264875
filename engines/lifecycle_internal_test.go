package engines

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

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
		f := Classify(c.engine, c.stage, c.exit, c.tail)
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

func TestWaitReady(t *testing.T) {
	t.Run("ready after probes fail", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			n := 0
			probe := func(context.Context) bool { n++; return n == 5 }
			start := time.Now()
			r, err := waitReady(context.Background(), probe, nil, time.Second, time.Hour)
			if r != ready || err != nil || time.Since(start) != 4*time.Second {
				t.Fatalf("waitReady = %v, %v after %v; want ready after 4s", r, err, time.Since(start))
			}
		})
	})
	t.Run("startup timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			r, _ := waitReady(context.Background(), func(context.Context) bool { return false }, nil, time.Second, DefaultStartupTimeout)
			if r != timedOut || time.Since(start) != DefaultStartupTimeout {
				t.Fatalf("waitReady = %v after %v; want timeout after %v", r, time.Since(start), DefaultStartupTimeout)
			}
		})
	})
	t.Run("process exit stops the wait at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			done := make(chan struct{})
			go func() { time.Sleep(90 * time.Second); close(done) }()
			start := time.Now()
			r, _ := waitReady(context.Background(), func(context.Context) bool { return false }, done, 10*time.Second, time.Hour)
			if r != exited || time.Since(start) != 90*time.Second {
				t.Fatalf("waitReady = %v after %v; want exited after 90s", r, time.Since(start))
			}
		})
	})
	t.Run("cancel", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_, err := waitReady(ctx, func(context.Context) bool { return false }, nil, time.Second, time.Hour)
			if err != context.DeadlineExceeded {
				t.Fatalf("waitReady = %v; want the context's error", err)
			}
		})
	})
}

func TestCappedLogKeepsTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.log")
	l, err := openCappedLog(path, 4096)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		fmt.Fprintf(l, "line %04d of the engine's chatter\n", i)
	}
	l.Close()
	b, _ := os.ReadFile(path)
	if len(b) > 4096 {
		t.Errorf("log is %d bytes; cap 4096", len(b))
	}
	s := string(b)
	if !strings.HasPrefix(s, "[servetune: ") || !strings.HasSuffix(s, "line 0999 of the engine's chatter\n") {
		t.Errorf("log lost its tail or the cut marker:\n%s", s)
	}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n")[1:] {
		if !strings.HasPrefix(line, "line ") || !strings.HasSuffix(line, "chatter") {
			t.Fatalf("torn line %q", line)
		}
	}
	if got := tailLines(strings.NewReader(s), int64(len(s)), 2); len(got) != 2 || got[1] != "line 0999 of the engine's chatter" {
		t.Errorf("tailLines = %q", got)
	}
}

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		s    string
		want string
	}{{"0.11.0", "0.11.0"}, {"v0.5.3.post3", "0.5.3"}, {"1.2.0rc1", "1.2.0"}, {"0.22.1.dev3+g1234", "0.22.1"}, {"", "latest"}, {"0.13", "0.13.0"}} {
		v, err := ParseVersion(c.s)
		if err != nil || v.String() != c.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %s", c.s, v, err, c.want)
		}
	}
	if !MustVersion("0.11.1").AtLeast(vllm0111) || MustVersion("0.11.0").AtLeast(vllm0111) || !Latest().AtLeast(vllm013) || MustVersion("9.0").AtLeast(Latest()) {
		t.Error("AtLeast ordering wrong")
	}
}

func TestYAMLRoundTrip(t *testing.T) {
	in := map[string]any{"a": int64(1), "b": map[string]any{"c": "x y", "d": false, "e": map[string]any{}}, "f": nil, "g": 0.85, "h": "8"}
	out, err := readYAML(writeYAML(in))
	if err != nil || fmt.Sprint(out) != fmt.Sprint(in) {
		t.Errorf("readYAML(writeYAML(m)) = %v, %v; want %v", out, err, in)
	}
	flow, err := readYAML("cuda_graph_config: {enable_padding: true, max_batch_size: 256}\n# comment\nkv_cache_config:\n  dtype: fp8 # trailing\n")
	if err != nil || fmt.Sprint(flow) != "map[cuda_graph_config:map[enable_padding:true max_batch_size:256] kv_cache_config:map[dtype:fp8]]" {
		t.Errorf("flow YAML = %v, %v", flow, err)
	}
}

// A version command that forks a child holding its output (a prefix
// such as srun or docker run, a launcher script) is bounded by its
// context and leaves nothing running: the whole group is killed.
func TestVersionCommandLeavesNoProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "child")
	script := `echo "tool version 1.2.3"; trap "" TERM; sleep 300 & echo $! > "$1"; wait`
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if b, _ := os.ReadFile(pidFile); len(b) > 0 {
				cancel() // a signal while the command runs
				return
			}
			time.Sleep(10 * time.Millisecond) // polling a file the script writes
		}
	}()
	done := make(chan string, 1)
	go func() { done <- engineVersion(ctx, []string{"/bin/sh", "-c", script, "sh", pidFile}, nil) }()
	select {
	case v := <-done:
		if v != "1.2.3" {
			t.Errorf("version %q, want what it printed before the signal, 1.2.3", v)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the version command still held servetune 30 s after the signal")
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// SIGKILL was sent before engineVersion returned; its delivery may
	// take a moment on a loaded machine.
	for deadline := time.Now().Add(5 * time.Second); slices.ContainsFunc(readProcs(), func(p proc) bool { return p.pid == pid && p.live }); {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the version command's child %d outlived it", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling another process's exit
	}
}
