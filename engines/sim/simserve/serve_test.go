package simserve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// syncBuffer is a log both the server and the test touch.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type running struct {
	base string
	log  *syncBuffer
	err  chan error
	stop context.CancelFunc
}

// serve starts Serve in-process and waits until /health answers 200.
func serve(t *testing.T, o Options) *running {
	t.Helper()
	port := freePort(t)
	log := &syncBuffer{}
	o.Log = log
	o.Args = append(o.Args, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{base: "http://127.0.0.1:" + strconv.Itoa(port), log: log, err: make(chan error, 1), stop: cancel}
	go func() { r.err <- Serve(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-r.err; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	sawStarting := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		resp, err := http.Get(r.base + "/health")
		if err != nil {
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			sawStarting = true
		}
		if resp.StatusCode == http.StatusOK {
			if !sawStarting {
				t.Error("/health was never 503 during the simulated startup")
			}
			return r
		}
	}
	t.Fatalf("not ready:\n%s", log.String())
	return nil
}

// The streamed schedule is the offline one: bench's measured TTFT and
// TPOT against the server match Evaluate's records for the same profile,
// scaled by the speed.
func TestServeStreamsTheSimulatedSchedule(t *testing.T) {
	const speed = 5
	tgt := space.Target{Engine: "sglang", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}
	cfg := space.Config{"engine": "sglang", "tp": int64(1)}
	p := bench.Profile{Name: "t", InputLen: 1000, OutputLen: 40, NumPrompts: 4, MaxConcurrency: 2, RequestRate: math.Inf(1), Seed: 3}
	recs, dur, err := sim.New().Evaluate(context.Background(), cfg, tgt, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := bench.Summarize(recs, dur, bench.SummaryOptions{})

	r := serve(t, Options{Engine: "sglang", GPU: "H100", GPUs: 1, Speed: speed, Startup: 100 * time.Millisecond, Args: []string{"--model-path", "Qwen/Qwen3-8B", "--tp-size=1"}})
	res, err := bench.Run(context.Background(), bench.Client{BaseURL: r.base, Model: "Qwen/Qwen3-8B"}, p, bench.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Metrics
	if got.Completed != p.NumPrompts || got.TotalOutput != p.NumPrompts*p.OutputLen {
		t.Fatalf("completed %d with %d output tokens; want %d and %d", got.Completed, got.TotalOutput, p.NumPrompts, p.NumPrompts*p.OutputLen)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean TTFT ms", got.TTFT.Mean, want.TTFT.Mean / speed},
		{"mean TPOT ms", got.TPOT.Mean, want.TPOT.Mean / speed},
		{"mean E2E ms", got.E2EL.Mean, want.E2EL.Mean / speed},
	} {
		// Real HTTP and scheduling add a little; 35% + 1 ms covers a loaded
		// 2-core machine while telling speed 5 from 4 or 6 apart.
		t.Logf("%s = %.3f, offline ÷ speed %.3f", c.name, c.got, c.want)
		if math.Abs(c.got-c.want) > 0.35*c.want+1 {
			t.Errorf("%s = %.2f, want %.2f (offline ÷ %d)", c.name, c.got, c.want, speed)
		}
	}
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// dataLines are the SSE payloads of a stream, in order.
func dataLines(stream string) []string {
	var out []string
	for _, l := range strings.Split(stream, "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestServeFrontEnd(t *testing.T) {
	for _, engine := range []string{"vllm", "sglang", "trtllm"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			args := []string{"Qwen/Qwen3-8B", "--served-model-name", "qwen"}
			served := "qwen"
			switch engine {
			case "sglang":
				args[0] = "--model-path=Qwen/Qwen3-8B"
			case "trtllm":
				args, served = args[:1], "Qwen/Qwen3-8B" // no served-model-name flag
			}
			r := serve(t, Options{Engine: engine, GPU: "H100", Speed: 50, Startup: time.Second, Args: args})
			resp, err := http.Get(r.base + "/v1/models")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var models struct{ Data []struct{ ID string } }
			if json.Unmarshal(b, &models) != nil || len(models.Data) != 1 || models.Data[0].ID != served {
				t.Errorf("/v1/models = %s; want the served name %q", b, served)
			}

			code, body := post(t, r.base+"/v1/chat/completions", `{"model":"`+served+`","messages":[{"role":"user","content":"one two three"}],"max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`)
			events := dataLines(body)
			if code != 200 || len(events) < 4 || events[len(events)-1] != "[DONE]" {
				t.Fatalf("chat stream %d:\n%s", code, body)
			}
			if !strings.Contains(events[0], `"role":"assistant"`) {
				t.Errorf("first chat chunk %s is not the role chunk", events[0])
			}
			var usage struct {
				Choices []any
				Usage   struct{ PromptTokens, CompletionTokens int } `json:"usage"`
			}
			last := events[len(events)-2]
			if err := json.Unmarshal([]byte(strings.NewReplacer("prompt_tokens", "PromptTokens", "completion_tokens", "CompletionTokens").Replace(last)), &usage); err != nil ||
				len(usage.Choices) != 0 || usage.Usage.PromptTokens != 3 || usage.Usage.CompletionTokens != 5 {
				t.Errorf("usage chunk %s; want 3 prompt and 5 completion tokens, no choices", last)
			}
			if got := strings.Count(body, " hi"); got != 5 {
				t.Errorf("%d tokens of text streamed, want 5", got)
			}

			code, body = post(t, r.base+"/v1/completions", `{"prompt":[1,2,3],"max_tokens":3}`)
			if code != 200 || !strings.Contains(body, `"completion_tokens":3`) {
				t.Errorf("non-streamed completion %d: %s", code, body)
			}
			if code, body = post(t, r.base+"/v1/completions", `{"model":"nope","prompt":"x","max_tokens":1}`); code != 404 {
				t.Errorf("wrong model: %d %s", code, body)
			}
			if code, body = post(t, r.base+"/v1/completions", `{"prompt":"x","max_tokens":100000000,"stream":true}`); code != 400 || !strings.Contains(body, "maximum context length") {
				t.Errorf("too long: %d %s", code, body)
			}
		})
	}
}

// TRT-LLM includes usage whenever stream_options is present; vLLM only
// when include_usage is true.
func TestServeUsageDefaults(t *testing.T) {
	for engine, want := range map[string]bool{"trtllm": true, "vllm": false} {
		r := serve(t, Options{Engine: engine, GPU: "H100", Speed: 50, Startup: time.Second, Args: []string{"Qwen/Qwen3-8B"}})
		_, body := post(t, r.base+"/v1/completions", `{"prompt":[1,2],"max_tokens":2,"stream":true,"stream_options":{}}`)
		if got := strings.Contains(body, `"usage":{`); got != want {
			t.Errorf("%s: usage sent = %v, want %v:\n%s", engine, got, want, body)
		}
		if engine == "trtllm" && !strings.Contains(body, `"object":"chat.completion.chunk","created"`) {
			t.Errorf("trtllm usage chunk should be a chat.completion.chunk:\n%s", body)
		}
	}
}
