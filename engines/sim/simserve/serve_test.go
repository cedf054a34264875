package simserve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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

// running is a simulated engine on an in-memory network, inside the
// test's synctest bubble.
type running struct {
	base   string
	client *http.Client
}

// serve starts Serve on a network of its own; see serveOn.
func serve(t *testing.T, o Options) *running {
	t.Helper()
	return serveOn(t, newMemNet(), 8000, o)
}

// serveOn starts Serve on n at 127.0.0.1:port inside the caller's
// synctest bubble and returns once it is ready, having checked that
// /health answers 503 from the moment it listens until the simulated
// startup (o.Startup ÷ o.Speed) has passed, and 200 at that instant.
func serveOn(t *testing.T, n *memNet, port int, o Options) *running {
	t.Helper()
	if o.Startup <= 0 || o.Speed <= 0 {
		t.Fatal("serveOn needs Startup and Speed to know when the engine is ready")
	}
	log := &syncBuffer{}
	o.Log, o.listen = log, n.Listen
	o.Args = append(o.Args, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{base: "http://127.0.0.1:" + strconv.Itoa(port), client: n.Client()}
	errc := make(chan error, 1)
	go func() { errc <- Serve(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Serve: %v", err)
		}
		r.client.CloseIdleConnections()
	})
	synctest.Wait() // listening, and loading on the bubble's clock
	startup, launched := time.Duration(float64(o.Startup)/o.Speed), time.Now()
	for _, at := range []struct {
		after time.Duration
		want  int
	}{{0, http.StatusServiceUnavailable}, {startup - time.Nanosecond, http.StatusServiceUnavailable}, {time.Nanosecond, http.StatusOK}} {
		time.Sleep(at.after)
		synctest.Wait()
		if code, _ := r.get(t, "/health"); code != at.want {
			t.Fatalf("/health = %d %v after launch, want %d (simulated startup %v):\n%s", code, time.Since(launched), at.want, startup, log)
		}
	}
	return r
}

// The streamed schedule is the offline one: bench's measured TTFT and
// TPOT against the server match Evaluate's records for the same profile,
// scaled by the speed, to the microsecond on the synctest clock.
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

	var got bench.Metrics
	synctest.Test(t, func(t *testing.T) {
		r := serve(t, Options{Engine: "sglang", GPU: "H100", GPUs: 1, Speed: speed, Startup: 100 * time.Millisecond, Args: []string{"--model-path", "Qwen/Qwen3-8B", "--tp-size=1"}})
		res, err := bench.Run(context.Background(), bench.Client{BaseURL: r.base, Model: "Qwen/Qwen3-8B", HTTPClient: r.client}, p, bench.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got = res.Metrics
	})
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
		// On the bubble's clock HTTP costs no time: only the schedule's
		// rounding to whole nanoseconds ÷ speed separates them.
		t.Logf("%s = %.6f, offline ÷ speed %.6f", c.name, c.got, c.want)
		if math.Abs(c.got-c.want) > 1e-3 {
			t.Errorf("%s = %.6f, want %.6f (offline ÷ %d)", c.name, c.got, c.want, speed)
		}
	}
}

func (r *running) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, err := r.client.Get(r.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (r *running) post(t *testing.T, path, body string) (int, string) {
	t.Helper()
	resp, err := r.client.Post(r.base+path, "application/json", strings.NewReader(body))
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
			synctest.Test(t, func(t *testing.T) {
				r := serve(t, Options{Engine: engine, GPU: "H100", Speed: 50, Startup: time.Second, Args: args})
				_, b := r.get(t, "/v1/models")
				var models struct{ Data []struct{ ID string } }
				if json.Unmarshal(b, &models) != nil || len(models.Data) != 1 || models.Data[0].ID != served {
					t.Errorf("/v1/models = %s; want the served name %q", b, served)
				}

				code, body := r.post(t, "/v1/chat/completions", `{"model":"`+served+`","messages":[{"role":"user","content":"one two three"}],"max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`)
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

				code, body = r.post(t, "/v1/completions", `{"prompt":[1,2,3],"max_tokens":3}`)
				if code != 200 || !strings.Contains(body, `"completion_tokens":3`) {
					t.Errorf("non-streamed completion %d: %s", code, body)
				}
				if code, body = r.post(t, "/v1/completions", `{"model":"nope","prompt":"x","max_tokens":1}`); code != 404 {
					t.Errorf("wrong model: %d %s", code, body)
				}
				if code, body = r.post(t, "/v1/completions", `{"prompt":"x","max_tokens":100000000,"stream":true}`); code != 400 || !strings.Contains(body, "maximum context length") {
					t.Errorf("too long: %d %s", code, body)
				}
			})
		})
	}
}

// TRT-LLM includes usage whenever stream_options is present; vLLM only
// when include_usage is true.
func TestServeUsageDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for engine, want := range map[string]bool{"trtllm": true, "vllm": false} {
			r := serve(t, Options{Engine: engine, GPU: "H100", Speed: 50, Startup: time.Second, Args: []string{"Qwen/Qwen3-8B"}})
			_, body := r.post(t, "/v1/completions", `{"prompt":[1,2],"max_tokens":2,"stream":true,"stream_options":{}}`)
			if got := strings.Contains(body, `"usage":{`); got != want {
				t.Errorf("%s: usage sent = %v, want %v:\n%s", engine, got, want, body)
			}
			if engine == "trtllm" && !strings.Contains(body, `"object":"chat.completion.chunk","created"`) {
				t.Errorf("trtllm usage chunk should be a chat.completion.chunk:\n%s", body)
			}
		}
	})
}
