package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/servetune/servetune/bench/benchtest"
)

func qualityPlan(t *testing.T) Plan {
	t.Helper()
	path := filepath.Join(t.TempDir(), "qa.jsonl")
	lines := `{"prompt":"2+2=","max_tokens":4,"reference":"4"}
{"prompt":"Capital of France?","max_tokens":8,"reference_regex":"(?i)\\bparis\\b"}
{"prompt":"Say hi","max_tokens":4}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	pl, err := Profile{Kind: KindQuality, Dataset: DatasetJSONL, DatasetPath: path, NumPrompts: 3}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

func TestQualityScoresRepliesAndAgreement(t *testing.T) {
	pl := qualityPlan(t)
	cases := []struct {
		name      string
		replies   []string
		baseline  []string
		want      map[string]float64
		agreement bool
	}{
		{"all right, no baseline", []string{" 4\n", "It is Paris.", "hi"}, nil, map[string]float64{AnswerAccuracy: 1}, false},
		{"exact means exact", []string{"4.", "paris", "hi"}, nil, map[string]float64{AnswerAccuracy: 0.5}, false},
		{"a failed reply matches nothing", []string{"", "", ""}, []string{"", "", ""}, map[string]float64{AnswerAccuracy: 0, BaselineAgreement: 0}, true},
		{"agreement counts identical replies", []string{"4", "Lyon", "hello"}, []string{"4 ", "Paris", "hello"},
			map[string]float64{AnswerAccuracy: 0.5, BaselineAgreement: 2.0 / 3}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Quality(pl, tc.replies, tc.baseline)
			if len(got) != len(tc.want) {
				t.Fatalf("Quality = %v, want %v", got, tc.want)
			}
			for k, w := range tc.want {
				if g, ok := got[k]; !ok || !near(g, w) {
					t.Errorf("%s = %v (%v), want %v", k, g, ok, w)
				}
			}
		})
	}
	noRefs, _ := Profile{Kind: KindQuality, InputLen: 4, OutputLen: 4, NumPrompts: 2}.Plan()
	if got := Quality(noRefs, []string{"a", "b"}, nil); len(got) != 0 {
		t.Errorf("no references and no baseline: %v, want nothing defined", got)
	}
}

// A quality profile asks for greedy decoding to the model's own end and
// keeps each reply's text, in plan order.
func TestQualityRunKeepsReplies(t *testing.T) {
	pl := qualityPlan(t)
	var body map[string]any
	if err := json.Unmarshal(pl.appendBody(nil, &pl.Requests[0], "m"), &body); err != nil {
		t.Fatal(err)
	}
	if body["temperature"] != 0.0 || body["ignore_eos"] != nil {
		t.Errorf("quality body %v: want temperature 0 and no ignore_eos", body)
	}
	srv := benchtest.NewServer(benchtest.Config{})
	t.Cleanup(srv.Close)
	res, err := RunPlan(context.Background(), Client{BaseURL: srv.URL, Model: "m"}, pl, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	replies := Replies(pl, res.Records)
	for i, r := range replies {
		if r == "" || r[0] != ' ' {
			t.Errorf("reply %d = %q, want the server's streamed text", i, r)
		}
	}
	load, _ := Profile{InputLen: 4, OutputLen: 4, NumPrompts: 2}.Plan()
	res, err = RunPlan(context.Background(), Client{BaseURL: srv.URL, Model: "m"}, load, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.Text != "" {
			t.Errorf("a load profile kept reply text %q", r.Text)
		}
	}
}
