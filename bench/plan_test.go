package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestArrivals(t *testing.T) {
	a := Arrivals(1000, 4, 1, 7)
	if got, want := a[len(a)-1], 250*time.Second; absDur(got-want) > time.Microsecond {
		t.Errorf("last arrival %v, want %v (rescaled to n/rate)", got, want)
	}
	if !slices.IsSorted(a) {
		t.Error("arrivals not increasing")
	}
	if !slices.Equal(a, Arrivals(1000, 4, 1, 7)) {
		t.Error("same seed gave a different schedule")
	}
	if slices.Equal(a, Arrivals(1000, 4, 1, 8)) {
		t.Error("different seeds gave the same schedule")
	}
	for _, rate := range []float64{math.Inf(1), 0} {
		for _, x := range Arrivals(10, rate, 1, 1) {
			if x != 0 {
				t.Fatalf("rate %v: arrival %v, want all at 0", rate, x)
			}
		}
	}
	c := Arrivals(4, 2, math.Inf(1), 1)
	for i, x := range c {
		if want := time.Duration(i+1) * 500 * time.Millisecond; absDur(x-want) > time.Microsecond {
			t.Errorf("constant arrivals[%d] = %v, want %v", i, x, want)
		}
	}
}

// Gamma gaps with shape k have a coefficient of variation of 1/sqrt(k):
// 1 for Poisson, larger when burstier, smaller when smoother.
func TestArrivalsBurstiness(t *testing.T) {
	for _, k := range []float64{0.25, 1, 4} {
		a := Arrivals(20000, 10, k, 3)
		gaps := make([]float64, len(a))
		prev := time.Duration(0)
		for i, x := range a {
			gaps[i] = (x - prev).Seconds()
			prev = x
		}
		mean, sd := meanStd(gaps)
		if cv, want := sd/mean, 1/math.Sqrt(k); math.Abs(cv-want)/want > 0.05 {
			t.Errorf("burstiness %v: CV %.3f, want %.3f", k, cv, want)
		}
	}
}

func meanStd(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)))
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// The built-ins must reproduce the seeds' request counts and lengths.
func TestBuiltinsMatchSeeds(t *testing.T) {
	cases := []struct {
		name          string
		n, in, out    int
		conc          int
		rate          float64
		dataset       string
		endpoint      string
		totalIn, tOut int // exact totals for fixed-length profiles
	}{
		{"balanced", 1000, 8192, 1024, 512, 1000, DatasetRandom, EndpointCompletions, 8192000, 1024000},
		{"short-context", 1000, 1024, 128, 512, 1000, DatasetRandom, EndpointCompletions, 1024000, 128000},
		{"long-context", 100, 32000, 100, 0, 1, DatasetRandom, EndpointCompletions, 3200000, 10000},
		{"generation-heavy", 200, 1000, 2000, 0, 1, DatasetRandom, EndpointCompletions, 200000, 400000},
		{"sharegpt", 1000, 0, 0, 512, 1000, DatasetShareGPT, EndpointCompletions, 0, 0},
		{"sharegpt-rate-1", 1000, 0, 0, 0, 1, DatasetShareGPT, EndpointCompletions, 0, 0},
		{"sharegpt-rate-16", 1000, 0, 0, 0, 16, DatasetShareGPT, EndpointCompletions, 0, 0},
		{"sharegpt-bs-1", 100, 0, 0, 1, math.Inf(1), DatasetShareGPT, EndpointChat, 0, 0},
		{"sharegpt-bs-8", 100, 0, 0, 8, math.Inf(1), DatasetShareGPT, EndpointChat, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := Lookup(tc.name)
			if !ok {
				t.Fatalf("no built-in %q", tc.name)
			}
			if p.MaxConcurrency != tc.conc || p.RequestRate != tc.rate || p.DatasetName() != tc.dataset || p.EndpointName() != tc.endpoint {
				t.Errorf("profile %+v", p)
			}
			pl, err := p.Plan()
			if err != nil {
				t.Fatal(err)
			}
			if len(pl.Requests) != tc.n {
				t.Fatalf("%d requests, want %d", len(pl.Requests), tc.n)
			}
			if tc.totalIn > 0 && (pl.TotalInput() != tc.totalIn || pl.TotalOutput() != tc.tOut) {
				t.Errorf("planned tokens in/out = %d/%d, want %d/%d", pl.TotalInput(), pl.TotalOutput(), tc.totalIn, tc.tOut)
			}
			if last := pl.Requests[tc.n-1].Arrival; !p.Unlimited() && absDur(last-time.Duration(float64(tc.n)/tc.rate*1e9)) > time.Millisecond {
				t.Errorf("last arrival %v, want n/rate", last)
			}
		})
	}
	if got := len(Builtin()); got != 13 {
		t.Errorf("%d built-ins, want 13", got)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup found a profile that does not exist")
	}
}

func TestSyntheticShareGPT(t *testing.T) {
	p, _ := Lookup("sharegpt")
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pl.Requests {
		if r.InputLen < 4 || r.OutputLen < 4 || r.InputLen > 1024 || r.InputLen+r.OutputLen > 2048 {
			t.Fatalf("request %v breaks vllm's ShareGPT filter", r)
		}
	}
	in := float64(pl.TotalInput()) / 1000
	out := float64(pl.TotalOutput()) / 1000
	if in < 200 || in > 330 || out < 180 || out > 300 {
		t.Errorf("mean lengths in/out = %.0f/%.0f, want near the seeds' ShareGPT (233-328 / 221-270)", in, out)
	}
	again, _ := p.Plan()
	if !slices.EqualFunc(pl.Requests, again.Requests, func(a, b PlannedRequest) bool { return reflect.DeepEqual(a, b) }) {
		t.Error("same seed, different plan")
	}
}

func TestRandomDataset(t *testing.T) {
	p := Profile{InputLen: 100, OutputLen: 50, RangeRatio: 0.2, PrefixLen: 7, NumPrompts: 200, Seed: 5}
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	seenIn := map[int]bool{}
	for i := range pl.Requests {
		r := &pl.Requests[i]
		if r.InputLen < 7+80 || r.InputLen > 7+120 || r.OutputLen < 40 || r.OutputLen > 60 {
			t.Fatalf("request %v outside the range", r)
		}
		seenIn[r.InputLen] = true
		var body struct {
			Prompt []int `json:"prompt"`
		}
		if err := json.Unmarshal(pl.appendBody(nil, r, "m"), &body); err != nil {
			t.Fatal(err)
		}
		if len(body.Prompt) != r.InputLen {
			t.Fatalf("prompt has %d ids, planned %d", len(body.Prompt), r.InputLen)
		}
		if !slices.Equal(body.Prompt[:7], pl.prefix) {
			t.Fatal("prefix not shared")
		}
		for _, id := range body.Prompt {
			if id < tokenBase || id >= tokenBase+tokenSpan {
				t.Fatalf("token id %d outside the safe range", id)
			}
		}
	}
	if len(seenIn) < 10 {
		t.Errorf("only %d distinct input lengths: range ratio ignored?", len(seenIn))
	}
	other := p
	other.Seed = 6
	pl2, _ := other.Plan()
	if bytes.Equal(pl.appendBody(nil, &pl.Requests[0], "m"), pl2.appendBody(nil, &pl2.Requests[0], "m")) {
		t.Error("different seeds produced the same prompt")
	}
}

func TestRequestBody(t *testing.T) {
	p := Profile{InputLen: 5, OutputLen: 9, NumPrompts: 1}
	pl, _ := p.Plan()
	var b map[string]any
	if err := json.Unmarshal(pl.appendBody(nil, &pl.Requests[0], `we"ird`), &b); err != nil {
		t.Fatal(err)
	}
	if b["model"] != `we"ird` || b["max_tokens"] != 9.0 || b["stream"] != true || b["ignore_eos"] != true ||
		b["stream_options"].(map[string]any)["include_usage"] != true {
		t.Errorf("completions body %v", b)
	}
	p.Endpoint, p.NoIgnoreEOS = EndpointChat, true
	pl, _ = p.Plan()
	b = nil
	if err := json.Unmarshal(pl.appendBody(nil, &pl.Requests[0], "m"), &b); err != nil {
		t.Fatal(err)
	}
	msgs := b["messages"].([]any)
	content := msgs[0].(map[string]any)["content"].(string)
	if len(strings.Fields(content)) != 5 || b["max_completion_tokens"] != 9.0 || b["max_tokens"] != 9.0 {
		t.Errorf("chat body %v", b)
	}
	if _, ok := b["ignore_eos"]; ok {
		t.Error("ignore_eos sent although disabled")
	}
}

func TestShareGPTFile(t *testing.T) {
	p := Profile{Dataset: DatasetShareGPT, DatasetPath: "testdata/sharegpt_small.json", NumPrompts: 5, Seed: 1}
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	prompts := map[string]bool{}
	for _, r := range pl.Requests {
		prompts[r.text] = true
		if r.OutputLen != EstimateTokens(replyFor(r.text)) {
			t.Errorf("max_tokens %d is not the reference reply's length", r.OutputLen)
		}
	}
	// Two entries are dropped (one turn; a 1-token prompt), three remain and
	// are oversampled up to five.
	if len(prompts) != 3 || prompts["Hi"] || prompts["Only one turn here, so it is dropped."] {
		t.Errorf("sampled prompts %v", prompts)
	}
	p.OutputLen = 77
	pl, _ = p.Plan()
	if pl.Requests[0].OutputLen != 77 {
		t.Error("output_len does not override the reply length")
	}
}

func replyFor(prompt string) string {
	return map[string]string{
		"What is the capital of France? Please answer briefly.": "The capital of France is Paris, a city on the Seine.",
		"東京の天気について教えてください。":                                     "今日の東京は晴れで、最高気温は二十度です。",
		"Write a haiku about autumn leaves falling.":            "Crimson leaves drifting, whispering to the cold ground, the year exhales slow.",
	}[prompt]
}

func TestJSONLFile(t *testing.T) {
	p := Profile{Dataset: DatasetJSONL, DatasetPath: "testdata/prompts.jsonl", NumPrompts: 3}
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	got := []int{pl.Requests[0].OutputLen, pl.Requests[1].OutputLen, pl.Requests[2].OutputLen}
	if !slices.Equal(got, []int{32, 128, 32}) || pl.Requests[1].text != "Explain TCP" {
		t.Errorf("jsonl plan %v", pl.Requests)
	}
}

func TestDatasetErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		dataset, path, want string
	}{
		{DatasetShareGPT, filepath.Join(dir, "missing.json"), "no such file"},
		{DatasetShareGPT, write("empty.json", ""), "no prompts"},
		{DatasetShareGPT, write("obj.json", `{"a":1}`), "want a JSON array"},
		{DatasetShareGPT, write("corrupt.json", `[{"conversations":[{"value":"x"}`), "entry 0"},
		{DatasetShareGPT, write("none.json", `[{"conversations":[{"value":"hi"}]}]`), "none of its 1 entries"},
		{DatasetJSONL, filepath.Join(dir, "missing.jsonl"), "no such file"},
		{DatasetJSONL, write("empty.jsonl", "\n\n"), "no prompts"},
		{DatasetJSONL, write("bad.jsonl", "{\"prompt\":\"a\",\"max_tokens\":1}\n{oops\n"), "bad.jsonl:2"},
		{DatasetJSONL, write("nomax.jsonl", `{"prompt":"a"}`), "nomax.jsonl:1"},
		{DatasetJSONL, write("badre.jsonl", `{"prompt":"a","max_tokens":1,"reference_regex":"("}`), "badre.jsonl:1: reference_regex"},
		{DatasetJSONL, write("bothrefs.jsonl", `{"prompt":"a","max_tokens":1,"reference":"x","reference_regex":"x"}`), "bothrefs.jsonl:1: give reference or reference_regex"},
	}
	for _, tc := range cases {
		_, err := Profile{Dataset: tc.dataset, DatasetPath: tc.path, NumPrompts: 1}.Plan()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, p := range Builtin() {
		if err := p.Validate(); err != nil {
			t.Errorf("built-in %s: %v", p.Name, err)
		}
	}
	bad := Profile{Name: "bad", Dataset: "tsv", RangeRatio: 1, NumPrompts: 0, RequestRate: math.NaN(), MaxConcurrency: -1, Endpoint: "embeddings"}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid profile accepted")
	}
	for _, want := range []string{"profile bad", "dataset must be", "range_ratio", "num_prompts", "request_rate", "max_concurrency", "endpoint"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if err := (Profile{InputLen: 1, NumPrompts: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "output_len") {
		t.Errorf("random without output_len: %v", err)
	}
}

func TestEstimateTokens(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abcd": 1, "abcde": 2, "東京": 2, "hi 東京": 3} {
		if got := EstimateTokens(s); got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestProfileJSONRoundTrip(t *testing.T) {
	for _, p := range Builtin() {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		var back Profile
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if !reflect.DeepEqual(back, p) {
			t.Errorf("%s: round trip gave %+v", p.Name, back)
		}
	}
	var p Profile
	if err := json.Unmarshal([]byte(`{"request_rate":"fast"}`), &p); err == nil {
		t.Error(`request_rate "fast" accepted`)
	}
}
