package bench

import (
	"strings"
	"testing"
	"time"
)

func TestParseStages(t *testing.T) {
	got, err := ParseStages("2.5:10m, 6:90s")
	if err != nil {
		t.Fatal(err)
	}
	want := []Stage{{2.5, 10 * time.Minute}, {6, 90 * time.Second}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ParseStages = %v, want %v", got, want)
	}
	for in, msg := range map[string]string{
		"":           "want RATE:DURATION",
		"2.5":        "want RATE:DURATION",
		"2:10m,":     "stage 2",
		"x:10m":      "rate",
		"-1:10m":     "rate",
		"inf:10m":    "rate",
		"NaN:10m":    "rate",
		"2:ten":      "duration",
		"2:0s":       "duration",
		"0.01:10s":   "sends no request",
		"2:10m;3:1m": "duration",
	} {
		if _, err := ParseStages(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseStages(%q) = %v, want an error saying %q", in, err, msg)
		}
	}
}

// Whatever the input, ParseStages either refuses it or returns stages a
// profile accepts.
func FuzzParseStages(f *testing.F) {
	for _, s := range []string{"2.5:10m,6:10m", "1:1s", "", ":", "1e308:1h", "0.5:1ns", "3:-1m", "1:1m,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStages(s)
		if err != nil {
			return
		}
		p := Profile{InputLen: 1, OutputLen: 1, Stages: st}
		var probs []string
		p.stageProblems(func(key, format string, a ...any) { probs = append(probs, key) })
		if len(st) == 0 || len(probs) > 0 {
			t.Fatalf("ParseStages(%q) = %v, which the profile refuses: %v", s, st, probs)
		}
	})
}
