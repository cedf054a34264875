package bench

import (
	"fmt"

	"github.com/servetune/servetune/internal/suggest"
)

// SharedPrefix is inference-perf's `shared_prefix` dataset: Groups system
// prompts, each shared by UsersPerGroup users who each ask their own
// question. Lengths are in tokens and fixed, as in the calibration runs
// (docs/metrics.md states the semantics and where they come from).
type SharedPrefix struct {
	Groups          int `toml:"num_unique_system_prompts" json:"num_unique_system_prompts"`
	UsersPerGroup   int `toml:"num_users_per_system_prompt" json:"num_users_per_system_prompt"`
	SystemPromptLen int `toml:"system_prompt_len" json:"system_prompt_len"`
	QuestionLen     int `toml:"question_len" json:"question_len"`
	OutputLen       int `toml:"output_len" json:"output_len"`
	// MultiTurn makes each user's requests one conversation: every round
	// sends the conversation so far (previous prompt and reply) followed by
	// the user's question, and waits for the previous round to finish.
	MultiTurn bool `toml:"enable_multi_turn_chat" json:"enable_multi_turn_chat,omitempty"`
	// MaxModelLen, when set, bounds a conversation to what the server
	// accepts: a round whose prompt plus output_len would exceed it starts
	// the conversation over (Overflow "restart", the default), or drops the
	// oldest turns until the prompt fits MaxModelLen - output_len - 200
	// (Overflow "truncate", inference-perf's user-session truncation). 0
	// lets it grow.
	MaxModelLen int    `toml:"max_model_len" json:"max_model_len,omitempty"`
	Overflow    string `toml:"overflow" json:"overflow,omitempty"`
}

// Overflow policies.
const (
	OverflowRestart  = "restart"
	OverflowTruncate = "truncate"
)

// historyMargin is inference-perf's allowance for tokenisation drift when
// it truncates a conversation to max_model_len.
const historyMargin = 200

func (sp *SharedPrefix) problems(bad func(key, format string, a ...any)) {
	if sp == nil {
		bad("shared_prefix", "is required for the shared_prefix dataset")
		return
	}
	pos := func(key string, v int) {
		if v <= 0 {
			bad("shared_prefix."+key, "must be > 0, not %d", v)
		}
	}
	pos("num_unique_system_prompts", sp.Groups)
	pos("num_users_per_system_prompt", sp.UsersPerGroup)
	pos("question_len", sp.QuestionLen)
	pos("output_len", sp.OutputLen)
	if sp.SystemPromptLen < 0 {
		bad("shared_prefix.system_prompt_len", "must be >= 0, not %d", sp.SystemPromptLen)
	}
	if o := sp.Overflow; o != "" && o != OverflowRestart && o != OverflowTruncate {
		bad("shared_prefix.overflow", "must be restart or truncate, not %q%s", o, suggest.Hint(o, []string{OverflowRestart, OverflowTruncate}))
	}
	if sp.Overflow != "" && sp.MaxModelLen == 0 {
		bad("shared_prefix.overflow", "applies only with max_model_len (a conversation without it never overflows): set max_model_len or remove overflow")
	}
	if sp.MaxModelLen < 0 {
		bad("shared_prefix.max_model_len", "must be >= 0 (0 = no bound), not %d", sp.MaxModelLen)
	}
	margin := 0
	if sp.Overflow == OverflowTruncate {
		margin = historyMargin
	}
	if m := sp.MaxModelLen; m > 0 && sp.SystemPromptLen+sp.QuestionLen+sp.OutputLen+margin > m {
		bad("shared_prefix.max_model_len", "%d cannot hold one round (system_prompt_len + question_len + output_len + %d = %d)",
			m, margin, sp.SystemPromptLen+sp.QuestionLen+sp.OutputLen+margin)
	}
}

// tokenRun is a run of the token cycle: n ids from offset on.
type tokenRun struct{ offset, n int }

// users is how many conversations (or distinct prompts) the dataset has.
func (sp *SharedPrefix) users() int { return sp.Groups * sp.UsersPerGroup }

// sharedPrefixRequests plans n requests. Request i goes to user i mod N
// (N = groups × users per group, in a seeded shuffled order, as
// inference-perf shuffles its sessions), round i / N. A user's question is
// the same every round; each reply is a stand-in run of the token cycle of
// output_len tokens.
func sharedPrefixRequests(p Profile, n int) []PlannedRequest {
	sp := p.SharedPrefix
	rng := datasetRNG(p.Seed)
	sys := make([]tokenRun, sp.Groups)
	for g := range sys {
		sys[g] = tokenRun{rng.IntN(tokenSpan), sp.SystemPromptLen}
	}
	N := sp.users()
	order := rng.Perm(N)
	question := make([]tokenRun, N)
	for u := range question {
		question[u] = tokenRun{rng.IntN(tokenSpan), sp.QuestionLen}
	}
	convs := make([]conversation, N)
	reqs := make([]PlannedRequest, n)
	for i := range reqs {
		u := order[i%N]
		g := u / sp.UsersPerGroup
		r := PlannedRequest{OutputLen: sp.OutputLen, Group: g, GroupLen: sp.SystemPromptLen, After: -1, Session: -1}
		if !sp.MultiTurn {
			r.segs = []tokenRun{sys[g], question[u]}
			r.Shared = sp.SystemPromptLen
		} else {
			r.Session, r.Round = u, i/N
			convs[u].next(&r, sp, sys[g], question[u], i, rng.IntN(tokenSpan))
		}
		r.InputLen = runsLen(r.segs)
		reqs[i] = r
	}
	return reqs
}

// conversation is one user's history as the plan builds it.
type conversation struct {
	turns []tokenRun // question, reply, question, reply, ... (kept turns)
	last  int        // index of the previous round's request; -1 none
	lastN int        // its prompt + reply length
	begun bool
}

// next fills r as the conversation's next round: system prompt, the kept
// turns, the question. The shareable prefix is the previous prompt and
// reply unless truncation dropped a turn, which leaves only the system
// prompt in common.
func (c *conversation) next(r *PlannedRequest, sp *SharedPrefix, sys, q tokenRun, i, replyOffset int) {
	if !c.begun {
		c.begun, c.last = true, -1
	}
	dropped := false
	switch {
	case sp.MaxModelLen == 0:
	case sp.Overflow == OverflowTruncate:
		limit := sp.MaxModelLen - sp.OutputLen - historyMargin
		for len(c.turns) > 0 && sys.n+runsLen(c.turns)+q.n > limit {
			c.turns = c.turns[2:]
			dropped = true
		}
	case sys.n+runsLen(c.turns)+q.n+sp.OutputLen > sp.MaxModelLen:
		c.turns, dropped = nil, true
	}
	r.segs = append(append([]tokenRun{sys}, c.turns...), q)
	r.Shared = sys.n
	if c.last >= 0 && !dropped {
		r.Shared, r.After = c.lastN, c.last
	}
	n := runsLen(r.segs)
	c.turns = append(c.turns, q, tokenRun{replyOffset, sp.OutputLen})
	c.last, c.lastN = i, n+sp.OutputLen
}

func runsLen(rs []tokenRun) int {
	n := 0
	for _, r := range rs {
		n += r.n
	}
	return n
}

func (sp *SharedPrefix) String() string {
	return fmt.Sprintf("%d×%d users, system %d + question %d → %d", sp.Groups, sp.UsersPerGroup, sp.SystemPromptLen, sp.QuestionLen, sp.OutputLen)
}
