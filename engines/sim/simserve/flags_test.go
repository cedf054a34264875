package simserve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
)

func TestReadExtra(t *testing.T) {
	cases := []struct {
		engine  string
		args    []string
		want    sim.Launch
		unknown []string
		err     string
	}{
		{"vllm", []string{"--max-model-len", "32k", "--reasoning-parser", "glm45", "--performance-mode", "throughput"},
			sim.Launch{MaxModelLen: 32000, ThroughputMode: true}, nil, ""},
		{"vllm", []string{"--max-model-len=1K", "--trust-remote-code"}, sim.Launch{MaxModelLen: 1024}, nil, ""},
		{"vllm", []string{"--max-model-len", "auto"}, sim.Launch{MaxModelLen: -1}, nil, ""},
		{"vllm", []string{"--performance-mode", "fast"}, sim.Launch{}, nil, "invalid choice"},
		{"vllm", []string{"--max-model-len"}, sim.Launch{}, nil, "expected one argument"},
		{"vllm", []string{"--bogus-flag", "1", "--dtype", "bfloat16"}, sim.Launch{}, []string{"--bogus-flag", "1"}, ""},
		{"vllm", []string{"--context-length", "4096"}, sim.Launch{}, []string{"--context-length", "4096"}, ""},
		{"sglang", []string{"--context-length", "8192", "--skip-server-warmup"}, sim.Launch{MaxModelLen: 8192}, nil, ""},
		{"trtllm", []string{"--max_seq_len", "16384", "--trust_remote_code"}, sim.Launch{MaxModelLen: 16384}, nil, ""},
		{"sglang", []string{"--context-length", "0"}, sim.Launch{}, nil, "must be positive"},
	}
	for _, c := range cases {
		l, unknown, err := readExtra(c.engine, c.args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %v: err = %v, want %q", c.engine, c.args, err, c.err)
			}
			continue
		}
		if err != nil || l != c.want || !reflect.DeepEqual(unknown, c.unknown) {
			t.Errorf("%s %v = %+v, %v, %v; want %+v, %v", c.engine, c.args, l, unknown, err, c.want, c.unknown)
		}
	}
}

func TestHumanInt(t *testing.T) {
	for in, want := range map[string]int{"4096": 4096, "1k": 1000, "1K": 1024, "25.6k": 25600, "2M": 2 << 20, "-1": -1} {
		if got, err := humanInt(in); err != nil || got != want {
			t.Errorf("humanInt(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "1.5", "abc", "1e400k", "NaNk"} {
		if _, err := humanInt(in); err == nil {
			t.Errorf("humanInt(%q) accepted", in)
		}
	}
}

func FuzzHumanInt(f *testing.F) {
	for _, s := range []string{"4096", "1k", "1K", "25.6k", "2M", "1g", "-1", "", "NaNk", "1e9G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := humanInt(s)
		if err != nil {
			return
		}
		if n > 1<<40 || n < -(1<<40) {
			t.Fatalf("humanInt(%q) = %d out of range", s, n)
		}
	})
}

// The simulated vLLM takes a command line as typed (program words and
// flags it ignores included), answers 503 while it starts (serveOn checks
// the window on the bubble's clock) and serves the length it was given.
func TestServeAcceptsAnOrdinaryVLLMCommandLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := serve(t, Options{Engine: "vllm", GPU: "H100", GPUs: 1, Speed: 50, Startup: time.Second,
			Args: []string{"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "4096", "--reasoning-parser", "qwen3", "--performance-mode", "balanced"}})
		code, body := r.get(t, "/v1/models")
		var models struct {
			Data []struct {
				MaxModelLen int `json:"max_model_len"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &models); err != nil || code != http.StatusOK || len(models.Data) != 1 {
			t.Fatalf("models: %d %v %s", code, err, body)
		}
		if models.Data[0].MaxModelLen != 4096 {
			t.Errorf("max_model_len = %d, want the command line's 4096", models.Data[0].MaxModelLen)
		}
	})
}

func TestServeRefusesALengthBeyondTheModel(t *testing.T) {
	var log syncBuffer
	var err error
	synctest.Test(t, func(t *testing.T) {
		err = Serve(context.Background(), Options{Engine: "vllm", GPU: "H100", GPUs: 1, Speed: 1000, Startup: time.Second, Log: &log,
			listen: newMemNet().Listen, Args: []string{"Qwen/Qwen3-8B", "--max-model-len", "1M"}})
	})
	var f *engines.Failure
	if !errors.As(err, &f) || f.Class != engines.InvalidConfig {
		t.Fatalf("err = %v, want InvalidConfig", err)
	}
	if !strings.Contains(log.String(), "greater than the derived max_model_len") {
		t.Errorf("log lacks vLLM's message:\n%s", log.String())
	}
}
