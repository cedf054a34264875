package measure

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
)

func TestLoadWrappersOfBothFormats(t *testing.T) {
	ms, err := Load("testdata/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("%d measurements", len(ms))
	}
	a := ms[0]
	if a.Source != "testdata/runs.json[0]" || a.Engine != "vllm" || a.Version != "0.15.1" || a.Config["max_running"] != int64(32) || a.Config["mem_fraction"] != 0.9 {
		t.Errorf("wrapper: %+v", a)
	}
	// The vLLM result's totals give the load: 1024 in, 256 out, 32 at once, all at t=0.
	p := a.Profile
	if p.NumPrompts != 200 || p.InputLen != 1024 || p.OutputLen != 256 || p.MaxConcurrency != 32 || !math.IsInf(p.RequestRate, 1) {
		t.Errorf("derived profile %+v", p)
	}
	for k, want := range map[string]float64{"mean_ttft_ms": 212.4, "p99_itl_ms": 61.2, "total_tps": 6203.1, "request_tps": 4.846, "duration_s": 41.27} {
		if a.Values[k] != want {
			t.Errorf("%s = %v, want %v", k, a.Values[k], want)
		}
	}
	if _, ok := a.Values["goodput_rps"]; ok {
		t.Error("a null request_goodput became a value")
	}
	b := ms[1]
	if strings.Join(b.Command, " ") != "vllm serve Qwen/Qwen3-8B --max-num-seqs 64" || b.Profile.RequestRate != 8 || b.Values["p90_e2e_ms"] != 6100 {
		t.Errorf("second: %+v", b)
	}
}

func TestServetuneResult(t *testing.T) {
	p := bench.Profile{Name: "short", Dataset: "random", InputLen: 512, OutputLen: 64, NumPrompts: 16, RequestRate: math.Inf(1), Seed: 1}
	m := bench.Summarize([]bench.Record{{Success: true, InputTokens: 512, OutputTokens: 64, TTFT: 90 * time.Millisecond, Latency: time.Second}}, 2*time.Second, bench.SummaryOptions{})
	var buf bytes.Buffer
	if err := bench.WriteJSON(&buf, bench.Result{Profile: p, Metrics: m, Duration: 2 * time.Second}, ""); err != nil {
		t.Fatal(err)
	}
	src := `{"engine": "sglang", "model": "Qwen/Qwen3-8B", "gpu": "H200", "config": {"tp": 2}, "result": ` + buf.String() + `}`
	ms, err := Parse("one.json", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Profile.InputLen != 512 || ms[0].Values["mean_ttft_ms"] != 90 || ms[0].Source != "one.json" {
		t.Errorf("%+v", ms[0])
	}
}

// Bad input names file, line and key.
func TestErrors(t *testing.T) {
	ok := `{"engine": "vllm", "model": "m", "gpu": "H100", "result": {"completed": 10, "total_input_tokens": 100, "total_output_tokens": 10, "mean_ttft_ms": 5}}`
	for _, c := range []struct{ src, want string }{
		{strings.Replace(ok, `"gpu"`, `"gpuu"`, 1), "f.json:1: gpuu: unknown key; did you mean \"gpu\"? (known: engine,"},
		{strings.Replace(ok, `"gpu": "H100", `, ``, 1), "f.json: gpu: is required"},
		{"{\n\"engine\": \"vllm\",\n\"gpus\": \"two\"}", "f.json:3: gpus: want int"},
		{"{\n\"engine\": ", "f.json:2: unexpected end"},
		{strings.Replace(ok, `"completed": 10`, `"completed": 0`, 1), "no request completed"},
		{strings.Replace(ok, `"result"`, `"config": {"tp": 0}, "result"`, 1), "config.tp: tp must be an integer >= 1"},
		{strings.Replace(ok, `"mean_ttft_ms": 5`, `"mean_ttft_ms": 0`, 1), "no usable metric"},
		{`[]`, "no measurements"},
		{strings.Replace(ok, `"result": {`, `"result": {"schema_version": 9, `, 1), "schema_version 9"},
	} {
		_, err := Parse("f.json", []byte(c.src), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n  err %v, want %q", c.src, err, c.want)
		}
	}
	if _, err := Load("testdata/missing.json"); err == nil || !strings.Contains(err.Error(), "testdata/missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/runs.json", "testdata/vllm-save-result.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"engine":"vllm","model":"m","gpu":"g","result":{"completed":1e300,"total_input_tokens":1e308,"total_output_tokens":-1,"p0_ttft_ms":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, _ := os.ReadFile("testdata/vllm-save-result.json")
		ms, err := Parse("f.json", b, func(string) ([]byte, error) { return res, nil })
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, m := range ms {
			if m.Engine == "" || m.GPU == "" || len(m.Values) == 0 || m.Profile.NumPrompts <= 0 {
				t.Fatalf("accepted an incomplete measurement %+v", m)
			}
			for k, v := range m.Values {
				if !(v > 0) || math.IsInf(v, 0) {
					t.Fatalf("%s = %v accepted", k, v)
				}
			}
		}
	})
}

// A staged load (servetune bench --stages, inference-perf's stages) has
// no num_prompts, yet its load is known: the stages' requests.
func TestStagedProfileIsAKnownLoad(t *testing.T) {
	src := []byte(`{"engine": "vllm", "model": "m", "gpu": "H100",
 "profile": {"dataset": "shared_prefix", "stages": [{"rate": 2, "duration": 10000000000}],
  "shared_prefix": {"num_unique_system_prompts": 1, "num_users_per_system_prompt": 2, "system_prompt_len": 10, "question_len": 5, "output_len": 4}},
 "result": {"completed": 20, "total_input_tokens": 300, "total_output_tokens": 80, "mean_ttft_ms": 9}}`)
	ms, err := Parse("s.json", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := ms[0].Profile.Count(); n != 20 {
		t.Errorf("load of %d requests, want the stage's 20", n)
	}
}
