package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/servetune/servetune/bench"
)

// allAtOnce is the arrival span under which a rate means "everything at
// once": the builtin sharegpt profile's 1000 prompts at 1000 req/s arrive
// within a second, and "rate 1000 req/s" read as a steady load misleads.
const allAtOnce = 2 * time.Second

// workload describes a profile's load in a line, as hand-made reports
// do: "random, 8K in / 1K out, 1000 prompts, rate inf, concurrency 256",
// for every dataset kind: its file, shared-prefix groups and lengths,
// stages and their rates, a rate search.
func workload(p bench.Profile) string {
	parts := []string{p.DatasetName()}
	if p.DatasetPath != "" {
		parts[0] += " (" + filepath.Base(p.DatasetPath) + ")"
	}
	if sp := p.SharedPrefix; sp != nil && p.DatasetName() == bench.DatasetSharedPrefix {
		parts = append(parts, sharedPrefix(*sp))
	} else if p.InputLen > 0 || p.OutputLen > 0 {
		parts = append(parts, fmt.Sprintf("%s in / %s out", tokens(p.InputLen), tokens(p.OutputLen)))
	}
	if p.DatasetName() == bench.DatasetTrace {
		parts = append(parts, fmt.Sprintf("%s (%v)", p.DatasetPath, p.Trace))
	}
	if p.PrefixLen > 0 {
		parts = append(parts, fmt.Sprintf("%s shared prefix", tokens(p.PrefixLen)))
	}
	parts = append(parts, arrivals(p)...)
	if p.MaxConcurrency > 0 {
		parts = append(parts, fmt.Sprintf("concurrency %d", p.MaxConcurrency))
	}
	if p.Kind == "quality" {
		parts = append(parts, "quality (greedy replies scored)")
	}
	return strings.Join(parts, ", ")
}

// sharedPrefix is the shared-prefix dataset's shape.
func sharedPrefix(sp bench.SharedPrefix) string {
	s := fmt.Sprintf("%d system prompts × %d users, %s-token system prompt, %s-token questions, %s out",
		sp.Groups, sp.UsersPerGroup, tokens(sp.SystemPromptLen), tokens(sp.QuestionLen), tokens(sp.OutputLen))
	if sp.MultiTurn {
		s += ", multi-turn"
	}
	return s
}

// arrivals is how the requests come: stages and their rates, a rate
// search, or prompts at a rate ("all at once" where that is what the
// rate means).
func arrivals(p bench.Profile) []string {
	if len(p.Stages) > 0 {
		st := make([]string, len(p.Stages))
		for i, s := range p.Stages {
			st[i] = fmt.Sprintf("stage %d: %g req/s for %s", i, s.Rate, s.Duration)
		}
		return []string{fmt.Sprintf("%d requests in %d stages (%s)", p.Count(), len(p.Stages), strings.Join(st, "; "))}
	}
	var out []string
	if p.NumPrompts > 0 {
		out = append(out, fmt.Sprintf("%d prompts", p.NumPrompts))
	}
	switch {
	case p.SearchRate != nil:
		out = append(out, fmt.Sprintf("highest rate in [%g, %g] req/s with %g%% of requests within the SLO", p.SearchRate.Low, p.SearchRate.High, p.SearchRate.Attainment*100))
	case math.IsInf(p.RequestRate, 1):
		out = append(out, "all at once (rate inf)")
	case p.RequestRate > 0 && p.NumPrompts > 0 && p.ArrivalSpan() < allAtOnce:
		out = append(out, fmt.Sprintf("all at once (rate %g req/s: every arrival within %s)", p.RequestRate, p.ArrivalSpan().Round(10*time.Millisecond)))
	case p.RequestRate > 0:
		out = append(out, fmt.Sprintf("rate %g req/s", p.RequestRate))
	}
	return out
}

// tokens writes a token count as reports do: 8192 → 8K, 1000 → 1000.
func tokens(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return fmt.Sprintf("%dK", n/1024)
	}
	return fmt.Sprint(n)
}
