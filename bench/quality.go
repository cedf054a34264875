package bench

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Quality metric names.
const (
	AnswerAccuracy    = "answer_accuracy"
	BaselineAgreement = "baseline_agreement"
)

// reference is a prompt's expected answer: exact text or a pattern.
type reference struct {
	exact *string
	re    *regexp.Regexp
}

// reference reads a JSONL line's expected answer, if it has one.
func (e jsonlEntry) reference() (*reference, error) {
	switch {
	case e.Reference != nil && e.ReferenceRegex != nil:
		return nil, errors.New("give reference or reference_regex, not both")
	case e.Reference != nil:
		return &reference{exact: e.Reference}, nil
	case e.ReferenceRegex != nil:
		re, err := regexp.Compile(*e.ReferenceRegex)
		if err != nil {
			return nil, fmt.Errorf("reference_regex: %w", err)
		}
		return &reference{re: re}, nil
	}
	return nil, nil
}

// matches reports whether a reply gives the expected answer: equal to the
// exact text (spaces at either end aside) or matching the pattern anywhere
// (anchor it with ^ and $ to match the whole reply).
func (r *reference) matches(reply string) bool {
	if r.exact != nil {
		return strings.TrimSpace(reply) == strings.TrimSpace(*r.exact)
	}
	return r.re.MatchString(reply)
}

// Replies are a run's replies in plan order: the text of each planned
// request's record, "" where it failed or was never sent.
func Replies(plan Plan, recs []Record) []string {
	out := make([]string, len(plan.Requests))
	for _, r := range recs {
		if !r.Warmup && r.Success && r.Index >= 0 && r.Index < len(out) {
			out[r.Index] = r.Text
		}
	}
	return out
}

// Quality scores a quality profile's replies (Replies): answer_accuracy
// is the fraction of prompts with a reference whose reply matches it,
// absent when no prompt has one; baseline_agreement is the fraction of
// prompts whose reply is identical (spaces at either end aside) to the
// baseline config's reply to the same prompt, absent without baseline
// replies. A failed request's reply is "" and matches nothing.
func Quality(plan Plan, replies, baseline []string) map[string]float64 {
	v := map[string]float64{}
	refs, right := 0, 0
	for i, r := range plan.Requests {
		if r.ref == nil || i >= len(replies) {
			continue
		}
		refs++
		if replies[i] != "" && r.ref.matches(replies[i]) {
			right++
		}
	}
	if refs > 0 {
		v[AnswerAccuracy] = float64(right) / float64(refs)
	}
	if n := min(len(replies), len(baseline)); n > 0 {
		same := 0
		for i := range n {
			if replies[i] != "" && strings.TrimSpace(replies[i]) == strings.TrimSpace(baseline[i]) {
				same++
			}
		}
		v[BaselineAgreement] = float64(same) / float64(n)
	}
	return v
}
