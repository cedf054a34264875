package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func sharedProfile(multi bool, maxLen int) Profile {
	return Profile{Name: "sp", Dataset: DatasetSharedPrefix, Seed: 3,
		SharedPrefix: &SharedPrefix{Groups: 3, UsersPerGroup: 2, SystemPromptLen: 10, QuestionLen: 5, OutputLen: 4,
			MultiTurn: multi, MaxModelLen: maxLen},
		Stages: []Stage{{Rate: 2, Duration: 6 * time.Second}, {Rate: 4, Duration: 3 * time.Second}}}
}

func ids(t *testing.T, pl *Plan, r *PlannedRequest) []int {
	t.Helper()
	var out []int
	if err := json.Unmarshal(pl.appendIDs(nil, r), &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != r.InputLen {
		t.Fatalf("request %d: %d ids, InputLen %d", r.Index, len(out), r.InputLen)
	}
	return out
}

func TestSharedPrefixSingleTurn(t *testing.T) {
	p := sharedProfile(false, 0)
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Requests) != 24 {
		t.Fatalf("%d requests, want 2×6 + 4×3 = 24", len(pl.Requests))
	}
	byGroup := map[int][]int{}
	for i := range pl.Requests {
		r := &pl.Requests[i]
		if r.InputLen != 15 || r.OutputLen != 4 || r.Shared != 10 || r.After != -1 || r.Group < 0 || r.Group > 2 {
			t.Fatalf("request %+v: want 10 + 5 tokens in, 4 out, the 10-token system prompt shared", r)
		}
		got := ids(t, &pl, r)
		if prev, ok := byGroup[r.Group]; ok && !slicesEqual(prev[:10], got[:10]) {
			t.Fatalf("group %d: system prompts differ", r.Group)
		}
		byGroup[r.Group] = got
	}
	if len(byGroup) != 3 {
		t.Errorf("%d groups used, want 3", len(byGroup))
	}
	if slicesEqual(byGroup[0][:10], byGroup[1][:10]) {
		t.Error("two groups share a system prompt")
	}
}

func TestSharedPrefixMultiTurn(t *testing.T) {
	p := sharedProfile(true, 0)
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	users := 6
	for i := range pl.Requests {
		r := &pl.Requests[i]
		round := i / users
		if r.Round != round || r.InputLen != 10+(round+1)*5+round*4 {
			t.Fatalf("request %d round %d: %d tokens, want %d", i, r.Round, r.InputLen, 10+(round+1)*5+round*4)
		}
		if round == 0 {
			if r.After != -1 || r.Shared != 10 {
				t.Fatalf("first round %+v continues something", r)
			}
			continue
		}
		prev := &pl.Requests[r.After]
		if prev.Session != r.Session || prev.Round != round-1 || r.Shared != prev.InputLen+prev.OutputLen {
			t.Fatalf("request %+v does not continue %+v", r, prev)
		}
		a, b := ids(t, &pl, prev), ids(t, &pl, r)
		if !slicesEqual(a, b[:len(a)]) {
			t.Fatalf("request %d does not start with the previous round's prompt", i)
		}
	}
}

func TestSharedPrefixRestart(t *testing.T) {
	// 40 tokens: round 2 is 10 + 3×5 + 2×4 = 33, + 4 out = 37 fits; round 3
	// would be 42 + 4: the conversation starts over.
	p := sharedProfile(true, 40)
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	for i := range pl.Requests {
		r := &pl.Requests[i]
		want := 10 + (r.Round%3+1)*5 + (r.Round%3)*4
		if r.InputLen != want || r.InputLen+r.OutputLen > 40 {
			t.Fatalf("request %d round %d: %d tokens, want %d", i, r.Round, r.InputLen, want)
		}
		if restart := r.Round%3 == 0; restart != (r.After == -1) || (restart && r.Shared != 10) {
			t.Fatalf("round %d %+v: a restart shares only the system prompt, a continuation the previous round", r.Round, r)
		}
	}
}

func TestSharedPrefixTruncation(t *testing.T) {
	// limit 240 - 4 - 200 = 36: sys 10 + question 5 + 3 turns of 9 = 42 > 36.
	p := sharedProfile(true, 240)
	p.SharedPrefix.Overflow = OverflowTruncate
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	for i := range pl.Requests {
		r := &pl.Requests[i]
		if r.InputLen > 36 {
			t.Fatalf("request %d: %d tokens exceed max_model_len - output - 200", i, r.InputLen)
		}
		if r.Round == 3 && (r.InputLen != 10+5+2*9 || r.After != -1 || r.Shared != 10) {
			t.Fatalf("round 3 %+v: want the oldest turn dropped, only the system prompt shared", r)
		}
		if r.Round == 4 && r.After < 0 {
			t.Fatalf("round 4 %+v: nothing dropped, the previous round should be shared", r)
		}
	}
}

func TestStagesArrivals(t *testing.T) {
	p := sharedProfile(false, 0)
	pl, _ := p.Plan()
	if got := pl.StageStarts; len(got) != 2 || got[0] != 0 || got[1] != 12 {
		t.Fatalf("stage starts %v, want [0 12]", got)
	}
	for i, r := range pl.Requests {
		lo, hi := time.Duration(0), 6*time.Second
		if i >= 12 {
			lo, hi = 6*time.Second, 9*time.Second
		}
		if r.Arrival < lo || r.Arrival > hi {
			t.Fatalf("request %d arrives at %v, outside its stage [%v, %v]", i, r.Arrival, lo, hi)
		}
	}
	if p.Count() != 24 || p.ArrivalSpan() != 9*time.Second || p.Unlimited() {
		t.Errorf("count %d span %v unlimited %v", p.Count(), p.ArrivalSpan(), p.Unlimited())
	}
}

func TestStageMetrics(t *testing.T) {
	p := sharedProfile(false, 0)
	p.Percentiles = []float64{75}
	var recs []Record
	for i := range 24 {
		lat := 100 * time.Millisecond
		if i >= 12 {
			lat = 300 * time.Millisecond
		}
		recs = append(recs, Record{Index: i, Success: true, Start: time.Duration(i) * time.Second, Latency: lat, TTFT: lat / 10, OutputTokens: 4})
	}
	m := Summarize(recs, 30*time.Second, p.Summary(SummaryOptions{}))
	if len(m.Stages) != 2 || m.Stages[0].Completed != 12 || m.Stages[1].E2EL.Mean != 300 || m.E2EL.Mean != 200 {
		t.Fatalf("stages %+v overall e2e %v", m.Stages, m.E2EL.Mean)
	}
	v := m.Values()
	for _, k := range []string{"stage0_mean_e2e_ms", "stage1_p90_ttft_ms", "p75_e2e_ms", "stage1_p75_e2e_ms", "p90_e2e_ms"} {
		if _, ok := v[k]; !ok {
			t.Errorf("Values lacks %s", k)
		}
	}
	if v["stage1_mean_e2e_ms"] != 300 {
		t.Errorf("stage1 mean e2e %v", v["stage1_mean_e2e_ms"])
	}
}

func TestSharedPrefixTOML(t *testing.T) {
	src := `dataset = "shared_prefix"
seed = 1
percentiles = [90]
stages = [{rate = 2.5, duration = "10m"}, {rate = 6, duration = "10m"}]
[shared_prefix]
num_unique_system_prompts = 9
num_users_per_system_prompt = 5
system_prompt_len = 100
question_len = 447
output_len = 248
enable_multi_turn_chat = true
max_model_len = 4096
`
	var p Profile
	md, err := toml.Decode(src, &p)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("decode: %v %v", err, md.Undecoded())
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Count() != 1500+3600 || p.SharedPrefix.users() != 45 {
		t.Errorf("count %d", p.Count())
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(p); err != nil {
		t.Fatal(err)
	}
	var back Profile
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Stages[1].Duration != 10*time.Minute || !back.SharedPrefix.MultiTurn {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

func TestSharedPrefixProblems(t *testing.T) {
	cases := map[string]func(p *Profile){
		"shared_prefix.question_len":  func(p *Profile) { p.SharedPrefix.QuestionLen = 0 },
		"shared_prefix.max_model_len": func(p *Profile) { p.SharedPrefix.MaxModelLen = 18 },
		"shared_prefix.overflow":      func(p *Profile) { p.SharedPrefix.Overflow = "wrap" },
		"shared_prefix is required":   func(p *Profile) { p.SharedPrefix = nil },
		"num_prompts must be unset":   func(p *Profile) { p.NumPrompts = 5 },
		"stages[1].rate":              func(p *Profile) { p.Stages[1].Rate = 0 },
		"stages[0].duration":          func(p *Profile) { p.Stages[0].Duration = 0 },
		"percentiles":                 func(p *Profile) { p.Percentiles = []float64{100} },
	}
	for want, mut := range cases {
		p := sharedProfile(true, 0)
		mut(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStageMetricNamesAreKnown(t *testing.T) {
	for name, want := range map[string]bool{"stage0_mean_e2e_ms": true, "stage12_p90_ttft_ms": true, "stage1_total_tps": true,
		"stage_mean_e2e_ms": false, "stage1_stage0_total_tps": false, "stage1_bogus": false} {
		if KnownMetric(name) != want {
			t.Errorf("KnownMetric(%q) = %v", name, !want)
		}
	}
}
