package report

import (
	"sort"

	"github.com/servetune/servetune/studies/store"
)

// FailureGroup is every trial that ended one way: an engine failure class
// (oom, invalid_config, …) or a state without one (pruned, interrupted),
// with one example.
type FailureGroup struct {
	Class   string
	Count   int
	Example int
	// Line is the example's most telling line: the engine's message the
	// class was recognised by (else its last log line), or the reason.
	Line string
}

func failures(trials []store.Trial) []FailureGroup {
	groups := map[string]*FailureGroup{}
	for _, t := range trials {
		class, line := outcomeOf(t)
		if class == "" {
			continue
		}
		g, ok := groups[class]
		if !ok {
			g = &FailureGroup{Class: class, Example: t.Number, Line: line}
			groups[class] = g
		}
		g.Count++
	}
	out := make([]FailureGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Class < out[j].Class
	})
	return out
}

func outcomeOf(t store.Trial) (class, line string) {
	switch {
	case t.Failure != nil:
		line = t.Failure.Message
		if n := len(t.Failure.Lines); line == "" && n > 0 {
			line = t.Failure.Lines[n-1]
		}
		return string(t.Failure.Class), line
	case t.State == store.Complete || t.State == store.Running:
		return "", ""
	case t.BrokeRule():
		return "rule", t.Reason
	}
	return string(t.State), t.Reason
}
