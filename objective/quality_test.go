package objective

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/servetune/servetune/bench"
)

// scoreReplies keeps the replies in prompt order and scores them: against
// the references, against the baseline's replies, and the baseline trial
// agrees with itself.
func TestScoreReplies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qa.jsonl")
	if err := os.WriteFile(path, []byte(`{"prompt":"a","max_tokens":2,"reference":"x"}
{"prompt":"b","max_tokens":2}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := bench.Profile{Name: "qa", Kind: bench.KindQuality, Dataset: bench.DatasetJSONL, DatasetPath: path, NumPrompts: 2}
	out := bench.Result{Records: []bench.Record{
		{Index: 1, Success: true, Text: "y"},
		{Index: 0, Success: true, Text: "x"},
	}}
	cases := []struct {
		name      string
		trial     Trial
		agreement float64
		defined   bool
	}{
		{"no baseline yet", Trial{}, 0, false},
		{"the baseline itself", Trial{IsBaseline: true}, 1, true},
		{"against the baseline", Trial{BaselineReplies: map[string][]string{"qa": {"x", "z"}}}, 0.5, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Result{Metrics: map[string]map[string]float64{}}
			scoreReplies(tc.trial, &res, p, out)
			if r := res.Replies["qa"]; len(r) != 2 || r[0] != "x" || r[1] != "y" {
				t.Errorf("replies %q, want in prompt order", r)
			}
			m := withQuality(map[string]float64{"total_tps": 5}, res.Metrics["qa"])
			a, ok := m[bench.BaselineAgreement]
			if ok != tc.defined || a != tc.agreement || m[bench.AnswerAccuracy] != 1 || m["total_tps"] != 5 {
				t.Errorf("metrics %v", m)
			}
		})
	}
}
