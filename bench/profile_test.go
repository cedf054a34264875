package bench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// Problems name each bad field by its TOML key, so a space loader can
// report file:line:key; Validate joins them into one error.
func TestProfileProblems(t *testing.T) {
	cases := []struct {
		name string
		p    Profile
		keys []string
	}{
		{"valid random", Profile{InputLen: 8, OutputLen: 8, NumPrompts: 1}, nil},
		{"valid sharegpt", Profile{Dataset: DatasetShareGPT, NumPrompts: 1, RequestRate: math.Inf(1)}, nil},
		{"random needs lengths", Profile{NumPrompts: 1}, []string{"input_len", "output_len"}},
		{"random takes no file", Profile{InputLen: 1, OutputLen: 1, NumPrompts: 1, DatasetPath: "x"}, []string{"dataset_path"}},
		{"jsonl needs a file", Profile{Dataset: DatasetJSONL, NumPrompts: 1}, []string{"dataset_path"}},
		{"unknown dataset", Profile{Dataset: "tsv", NumPrompts: 1}, []string{"dataset"}},
		{"every other field", Profile{InputLen: 1, OutputLen: 1, RangeRatio: 1, PrefixLen: -1, NumPrompts: 0,
			RequestRate: math.NaN(), Burstiness: -1, MaxConcurrency: -1, Warmup: -1, MaxDuration: -time.Second, Endpoint: "embeddings"},
			[]string{"range_ratio", "prefix_len", "num_prompts", "request_rate", "burstiness", "max_concurrency", "warmup", "max_duration", "endpoint"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			probs := tc.p.Problems()
			var keys []string
			for _, pr := range probs {
				keys = append(keys, pr.Key)
			}
			if !slices.Equal(keys, tc.keys) {
				t.Fatalf("problem keys %v, want %v (%v)", keys, tc.keys, probs)
			}
			err := tc.p.Validate()
			if (err == nil) != (len(probs) == 0) {
				t.Fatalf("Validate() = %v with problems %v", err, probs)
			}
			var pr Problem
			if err != nil && (!errors.As(err, &pr) || pr != probs[0]) {
				t.Errorf("Validate() = %v, want it to wrap %v", err, probs[0])
			}
		})
	}
}

func TestProblemError(t *testing.T) {
	got := Problem{Key: "input_len", Msg: "must be > 0 for the random dataset, not 0"}.Error()
	if want := "input_len must be > 0 for the random dataset, not 0"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestProfileSLOAndRateSearchProblems(t *testing.T) {
	base := Profile{InputLen: 10, OutputLen: 10, NumPrompts: 5}
	cases := []struct {
		name string
		edit func(*Profile)
		keys []string
	}{
		{"valid", func(p *Profile) {
			p.SLO = &SLO{TTFTMs: 100}
			p.SearchRate = &RateSearch{Attainment: 0.99, Low: 0.5, High: 64}
		}, nil},
		{"empty slo", func(p *Profile) { p.SLO = &SLO{} }, []string{"slo"}},
		{"negative bound", func(p *Profile) { p.SLO = &SLO{TTFTMs: -1, E2ELMs: 5} }, []string{"slo.ttft_ms"}},
		{"bad search", func(p *Profile) { p.SearchRate = &RateSearch{Attainment: 1.5, Low: 0, High: 0} },
			[]string{"search_rate.attainment", "search_rate.low", "search_rate.high"}},
		{"inverted range", func(p *Profile) { p.SearchRate = &RateSearch{Attainment: 0.9, Low: 8, High: 4} }, []string{"search_rate.high"}},
		{"unknown kind", func(p *Profile) { p.Kind = "accuracy" }, []string{"kind"}},
		{"quality has no rate search", func(p *Profile) {
			p.Kind, p.SLO = KindQuality, &SLO{TTFTMs: 1}
			p.SearchRate = &RateSearch{Attainment: 0.9, Low: 1, High: 4}
		}, []string{"search_rate"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			tc.edit(&p)
			var keys []string
			for _, pr := range p.Problems() {
				keys = append(keys, pr.Key)
			}
			if fmt.Sprint(keys) != fmt.Sprint(tc.keys) {
				t.Errorf("problems at %v, want %v", keys, tc.keys)
			}
		})
	}
}

// A misspelt choice is named with the choice it is closest to.
func TestProfileChoicesSuggest(t *testing.T) {
	sp := &SharedPrefix{Groups: 1, UsersPerGroup: 1, QuestionLen: 1, OutputLen: 1, Overflow: "truncat"}
	for _, c := range []struct {
		p    Profile
		want string
	}{
		{Profile{Dataset: "shared-prefix", NumPrompts: 1}, `dataset must be random, sharegpt, jsonl, shared_prefix or trace, not "shared-prefix"; did you mean "shared_prefix"?`},
		{Profile{Dataset: DatasetSharedPrefix, SharedPrefix: sp, NumPrompts: 1}, `not "truncat"; did you mean "truncate"?`},
		{Profile{InputLen: 1, OutputLen: 1, NumPrompts: 1, Endpoint: "caht"}, `not "caht"; did you mean "chat"?`},
		{Profile{InputLen: 1, OutputLen: 1, NumPrompts: 1, Kind: "quallity"}, `not "quallity"; did you mean "quality"?`},
	} {
		if err := c.p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate = %v, want %q", err, c.want)
		}
	}
}
