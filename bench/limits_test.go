package bench

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestProfileBounds: a count, length or duration that would size memory
// or time past its cap is refused naming its key, before anything is
// planned; the same profiles just under the caps are accepted.
func TestProfileBounds(t *testing.T) {
	random := func(f func(*Profile)) Profile {
		p := Profile{Dataset: DatasetRandom, InputLen: 100, OutputLen: 10, NumPrompts: 10, RequestRate: math.Inf(1)}
		f(&p)
		return p
	}
	shared := func(f func(*SharedPrefix)) Profile {
		sp := &SharedPrefix{Groups: 2, UsersPerGroup: 2, SystemPromptLen: 10, QuestionLen: 10, OutputLen: 10}
		f(sp)
		return Profile{Dataset: DatasetSharedPrefix, SharedPrefix: sp, NumPrompts: 10, RequestRate: math.Inf(1)}
	}
	cases := []struct {
		name string
		p    Profile
		key  string // "" for accepted
	}{
		{"at the caps", random(func(p *Profile) { p.NumPrompts = MaxRequests; p.InputLen = 5000; p.OutputLen = 5000 }), ""},
		{"num_prompts", random(func(p *Profile) { p.NumPrompts = MaxRequests + 1 }), "num_prompts"},
		{"warmup", random(func(p *Profile) { p.Warmup = 1 << 40 }), "warmup"},
		{"max_concurrency", random(func(p *Profile) { p.MaxConcurrency = 1 << 40 }), "max_concurrency"},
		{"input_len", random(func(p *Profile) { p.InputLen = 1 << 60 }), "input_len"},
		{"output_len", random(func(p *Profile) { p.OutputLen = MaxRequestTokens + 1 }), "output_len"},
		{"prefix_len", random(func(p *Profile) { p.PrefixLen = math.MaxInt64 }), "prefix_len"},
		{"requests × lengths", random(func(p *Profile) { p.NumPrompts = MaxRequests; p.InputLen = 1_000_000 }), "num_prompts"},
		{"max_duration", random(func(p *Profile) { p.MaxDuration = 1000000 * time.Hour }), "max_duration"},
		{"a slow rate", random(func(p *Profile) { p.RequestRate = 1e-9 }), "request_rate"},
		{"a long stage", random(func(p *Profile) {
			p.NumPrompts, p.RequestRate = 0, 0
			p.Stages = []Stage{{Rate: 10, Duration: 1000000 * time.Hour}}
		}), "stages"},
		{"stages' total", random(func(p *Profile) {
			p.NumPrompts, p.RequestRate = 0, 0
			p.Stages = []Stage{{Rate: 1, Duration: 100 * time.Hour}, {Rate: 1, Duration: 100 * time.Hour}}
		}), "stages"},
		{"stages' requests", random(func(p *Profile) {
			p.NumPrompts, p.RequestRate = 0, 0
			p.Stages = []Stage{{Rate: 1e6, Duration: time.Hour}}
		}), "stages"},
		{"groups", shared(func(sp *SharedPrefix) { sp.Groups = 1000000000000 }), "shared_prefix.num_unique_system_prompts"},
		{"groups × users", shared(func(sp *SharedPrefix) { sp.Groups, sp.UsersPerGroup = 100000, 100000 }), "shared_prefix.num_users_per_system_prompt"},
		{"system prompt", shared(func(sp *SharedPrefix) { sp.SystemPromptLen = 9e18 }), "shared_prefix.system_prompt_len"},
		{"question", shared(func(sp *SharedPrefix) { sp.QuestionLen = 9e18 }), "shared_prefix.question_len"},
		{"a conversation's growth", func() Profile {
			p := shared(func(sp *SharedPrefix) {
				sp.MultiTurn = true
				sp.Groups, sp.UsersPerGroup = 1, 1
				sp.QuestionLen = 100000
			})
			p.NumPrompts = 1000
			return p
		}(), "shared_prefix.enable_multi_turn_chat"},
		{"a conversation bounded by max_model_len", func() Profile {
			p := shared(func(sp *SharedPrefix) {
				sp.MultiTurn, sp.MaxModelLen = true, 10000
				sp.Groups, sp.UsersPerGroup = 1, 1
				sp.QuestionLen = 1000
			})
			p.NumPrompts = 1000
			return p
		}(), ""},
	}
	for _, c := range cases {
		probs := c.p.Problems()
		if c.key == "" {
			if len(probs) != 0 {
				t.Errorf("%s: refused: %v", c.name, probs)
			}
			continue
		}
		if len(probs) == 0 || probs[0].Key != c.key {
			t.Errorf("%s: problems %v, want one naming %s", c.name, probs, c.key)
		}
	}
}

// TestProfileUnusedTables: what a profile would silently ignore is
// refused, naming the key the author should change.
func TestProfileUnusedTables(t *testing.T) {
	sp := &SharedPrefix{Groups: 2, UsersPerGroup: 2, SystemPromptLen: 10, QuestionLen: 10, OutputLen: 10}
	cases := []struct {
		name string
		p    Profile
		key  string
	}{
		{"shared_prefix on random", Profile{Dataset: DatasetRandom, InputLen: 10, OutputLen: 10, NumPrompts: 1, SharedPrefix: sp}, "shared_prefix"},
		{"shared_prefix on sharegpt", Profile{Dataset: DatasetShareGPT, NumPrompts: 1, SharedPrefix: sp}, "shared_prefix"},
		{"overflow without max_model_len", Profile{Dataset: DatasetSharedPrefix, NumPrompts: 1,
			SharedPrefix: &SharedPrefix{Groups: 1, UsersPerGroup: 1, QuestionLen: 1, OutputLen: 1, Overflow: OverflowTruncate}}, "shared_prefix.overflow"},
		{"trace on random", Profile{Dataset: DatasetRandom, InputLen: 10, OutputLen: 10, NumPrompts: 1, Trace: &Trace{Speedup: 2}}, "trace"},
		{"trace on shared_prefix", Profile{Dataset: DatasetSharedPrefix, NumPrompts: 1, SharedPrefix: sp, Trace: &Trace{}}, "trace"},
		{"shared_prefix on trace", Profile{Dataset: DatasetTrace, DatasetPath: "t.jsonl", SharedPrefix: sp}, "shared_prefix"},
		{"empty stages", Profile{Dataset: DatasetRandom, InputLen: 10, OutputLen: 10, Stages: []Stage{}}, "stages"},
	}
	for _, c := range cases {
		probs := c.p.Problems()
		if len(probs) != 1 || probs[0].Key != c.key {
			t.Errorf("%s: problems %v, want one naming %s", c.name, probs, c.key)
		}
		if len(probs) > 0 && strings.Contains(probs[0].Msg, "num_prompts must") {
			t.Errorf("%s: names num_prompts: %v", c.name, probs)
		}
	}
}
