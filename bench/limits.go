package bench

import (
	"fmt"
	"math"
	"time"
)

// A profile's counts, lengths and durations size the plan's memory and
// the benchmark's time, so each is bounded before anything is planned:
// past these caps a number means a typo (an extra zero, hours for
// seconds), and left unchecked one large number ends the process with the
// runtime's "out of memory" or a benchmark that never ends. The caps are
// generous (far above any serving benchmark) and documented in
// docs/space.md, "Bounds".
const (
	// MaxRequests bounds num_prompts, warmup, max_concurrency, the
	// stages' requests (rate × duration) and the shared-prefix users
	// (groups × users per group): each costs a planned request.
	MaxRequests = 1_000_000
	// MaxRequestTokens bounds every length in tokens (input, output,
	// prefix, system prompt, question, a conversation's prompt).
	MaxRequestTokens = 10_000_000
	// MaxProfileTokens bounds the tokens the whole profile sends and
	// asks for (requests × (input + output)).
	MaxProfileTokens = 10_000_000_000
	// MaxConversationTurns bounds the turns a multi-turn shared-prefix
	// plan keeps across its requests (each request holds its history).
	MaxConversationTurns = 100_000_000
	// MaxPercentiles bounds the extra percentiles a profile reports.
	MaxPercentiles = 100
	// MaxRate bounds a rate search's high end and a stage's rate, in
	// requests per second.
	MaxRate = 1_000_000
	// MaxSpan bounds a profile's arrivals (the stages' total duration,
	// num_prompts / request_rate) and max_duration.
	MaxSpan = 7 * 24 * time.Hour
	// MinMaxDuration is the shortest max_duration (and --max-duration) a
	// user may give: under a second no request of a real engine finishes
	// (a first token alone takes tens to hundreds of milliseconds under
	// load), so every trial failed "stopped at max_duration" (exit 3),
	// and the study's own durations have the same 1 s floor. A profile
	// built in code may set less (tests do); only what a user writes is
	// held to it (UserProblems).
	MinMaxDuration = time.Second
)

// MaxSLOMs is the largest SLO bound, in milliseconds: no request of a
// profile lasts longer than MaxSpan, so a bound past it (1e300 ms, a
// typo's extra zeros) holds for every request and bounds nothing.
const MaxSLOMs = float64(MaxSpan / time.Millisecond)

// UserProblems are the checks of what a user writes (a space file's
// profile, bench's flags) beyond Problems, which also vets profiles built
// in code: a max_duration too short to measure anything.
func (p Profile) UserProblems() []Problem {
	var probs []Problem
	if p.MaxDuration > 0 && p.MaxDuration < MinMaxDuration {
		probs = append(probs, Problem{"max_duration", fmt.Sprintf("is %v, shorter than the %v a benchmark needs to finish a request: give at least %v, or leave it out for no deadline", p.MaxDuration, MinMaxDuration, MinMaxDuration)})
	}
	return probs
}

// boundProblems reports every count, length and duration above its cap.
// It runs after the sign checks, so it only looks at values that are
// otherwise valid, and it computes in float64 so that no product
// overflows.
func (p Profile) boundProblems(bad func(key, format string, a ...any)) {
	count := func(key string, v int) {
		if v > MaxRequests {
			bad(key, "is %d, more than the %d a profile may have", v, MaxRequests)
		}
	}
	length := func(key string, v int) {
		if v > MaxRequestTokens {
			bad(key, "is %d tokens, more than the %d a request may have", v, MaxRequestTokens)
		}
	}
	count("num_prompts", p.NumPrompts)
	count("warmup", p.Warmup)
	count("max_concurrency", p.MaxConcurrency)
	length("input_len", p.InputLen)
	length("output_len", p.OutputLen)
	length("prefix_len", p.PrefixLen)
	if len(p.Percentiles) > MaxPercentiles {
		bad("percentiles", "lists %d, more than the %d a profile may report", len(p.Percentiles), MaxPercentiles)
	}
	if r := p.SearchRate; r != nil && r.High > MaxRate {
		bad("search_rate.high", "is %v req/s, more than the %d a rate search may reach", r.High, MaxRate)
	}
	if p.MaxDuration > MaxSpan {
		bad("max_duration", "is %v, longer than the %v a profile may run", p.MaxDuration, MaxSpan)
	}
	p.spanProblems(bad)
	if sp := p.SharedPrefix; sp != nil && p.DatasetName() == DatasetSharedPrefix {
		sp.boundProblems(bad, p.plannedCount())
		return
	}
	if tokens := float64(p.plannedCount()) * float64(p.InputLen+p.PrefixLen+p.OutputLen); tokens > MaxProfileTokens {
		bad(p.countKey(), "× (input_len + output_len) is %.3g tokens, more than the %.0e a profile may send", tokens, float64(MaxProfileTokens))
	}
}

// spanProblems bounds the stages' requests and duration, and the time
// num_prompts takes to arrive at request_rate.
func (p Profile) spanProblems(bad func(key, format string, a ...any)) {
	if len(p.Stages) > 0 {
		var span, reqs float64
		for _, s := range p.Stages {
			span += s.Duration.Seconds()
			reqs += s.Rate * s.Duration.Seconds()
		}
		if span > MaxSpan.Seconds() {
			bad("stages", "last %s in all, longer than the %v a profile may run", secs(span), MaxSpan)
		}
		if reqs > MaxRequests {
			bad("stages", "send %.3g requests in all (rate × duration), more than the %d a profile may have", reqs, MaxRequests)
		}
		return
	}
	if p.Unlimited() || p.SearchRate != nil || p.NumPrompts <= 0 || p.DatasetName() == DatasetTrace {
		return // a trace's arrivals are its own (trace.go bounds its window)
	}
	if span := float64(p.NumPrompts) / p.RequestRate; span > MaxSpan.Seconds() {
		bad("request_rate", "%v req/s takes %s to send num_prompts = %d, longer than the %v a profile may run", p.RequestRate, secs(span), p.NumPrompts, MaxSpan)
	}
}

// plannedCount is the requests the plan holds, in float-safe form: the
// stages' count is only computed once spanProblems has bounded it.
func (p Profile) plannedCount() int {
	if len(p.Stages) == 0 {
		return p.NumPrompts
	}
	var reqs float64
	for _, s := range p.Stages {
		reqs += s.Rate * s.Duration.Seconds()
	}
	if reqs > MaxRequests || math.IsNaN(reqs) {
		return 0 // reported by spanProblems
	}
	return p.Count()
}

// countKey names the key that sets the number of requests.
func (p Profile) countKey() string {
	if len(p.Stages) > 0 {
		return "stages"
	}
	return "num_prompts"
}

func (sp *SharedPrefix) boundProblems(bad func(key, format string, a ...any), n int) {
	for _, f := range []struct {
		key string
		v   int
	}{{"system_prompt_len", sp.SystemPromptLen}, {"question_len", sp.QuestionLen},
		{"output_len", sp.OutputLen}, {"max_model_len", sp.MaxModelLen}} {
		if f.v > MaxRequestTokens {
			bad("shared_prefix."+f.key, "is %d tokens, more than the %d a request may have", f.v, MaxRequestTokens)
			return
		}
	}
	for _, f := range []struct {
		key string
		v   int
	}{{"num_unique_system_prompts", sp.Groups}, {"num_users_per_system_prompt", sp.UsersPerGroup}} {
		if f.v > MaxRequests {
			bad("shared_prefix."+f.key, "is %d, more than the %d a profile may have", f.v, MaxRequests)
			return
		}
	}
	if users := float64(sp.Groups) * float64(sp.UsersPerGroup); users > MaxRequests {
		bad("shared_prefix.num_users_per_system_prompt", "× num_unique_system_prompts is %.3g users, more than the %d a profile may have", users, MaxRequests)
		return
	}
	sp.turnProblems(bad, n)
}

// turnProblems bounds a plan's prompts: each request holds its system
// prompt, question and, in a multi-turn conversation, the turns before it
// (up to what max_model_len keeps).
func (sp *SharedPrefix) turnProblems(bad func(key, format string, a ...any), n int) {
	users := max(sp.Groups*sp.UsersPerGroup, 1)
	rounds := 1.0
	if sp.MultiTurn {
		rounds = math.Ceil(float64(n) / float64(users))
		if turn := sp.QuestionLen + sp.OutputLen; sp.MaxModelLen > 0 && turn > 0 {
			rounds = min(rounds, float64(sp.MaxModelLen/turn)+1)
		}
	}
	prompt := float64(sp.SystemPromptLen) + rounds*float64(sp.QuestionLen+sp.OutputLen)
	switch {
	case prompt > MaxRequestTokens:
		bad("shared_prefix.enable_multi_turn_chat", "grows a conversation to %.3g tokens over %.0f rounds, more than the %d a request may have: set max_model_len or send fewer requests", prompt, rounds, MaxRequestTokens)
	case float64(n)*rounds > MaxConversationTurns:
		bad("shared_prefix.enable_multi_turn_chat", "keeps %.3g turns across the plan's requests (%d requests × %.0f rounds), more than %d: set max_model_len or send fewer requests", float64(n)*rounds, n, rounds, MaxConversationTurns)
	case float64(n)*prompt > MaxProfileTokens:
		bad("shared_prefix", "sends %.3g prompt tokens over %d requests, more than the %.0e a profile may send", float64(n)*prompt, n, float64(MaxProfileTokens))
	}
}

// secs renders a number of seconds as a duration, or in hours where a
// time.Duration would overflow.
func secs(s float64) string {
	if s < float64(math.MaxInt64/int64(time.Second)) {
		return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
	}
	return fmt.Sprintf("%.3gh", s/3600)
}
