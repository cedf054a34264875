package fidelity

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/engines/sim"
)

func TestFlagChecks(t *testing.T) {
	for _, h := range []string{HistoryNone, HistoryRestart, HistoryTruncate} {
		if err := CheckHistory(h); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	if err := CheckHistory("keep"); err == nil || !strings.Contains(err.Error(), `--history "keep"`) {
		t.Errorf("keep: %v", err)
	}
	for _, c := range []struct {
		o    FitOptions
		want string
	}{
		{FitOptions{Iterations: 8, Ridge: 0.02}, ""},
		{FitOptions{Iterations: 0, Ridge: 0.02}, "--iterations must be >= 1, not 0"},
		{FitOptions{Iterations: 8, Ridge: 0}, "--ridge must be > 0, not 0"},
		{FitOptions{Iterations: 100000000, Ridge: 0.02}, "--iterations 100000000 is more than the 1000 a fit may run (each simulates every run; a typo's extra zeros ran for days)"},
	} {
		o, want := c.o, c.want
		if err := o.Check(); (want == "") != (err == nil) || (err != nil && err.Error() != want) {
			t.Errorf("%+v: %v, want %q", o, err, want)
		}
	}
	if s, err := LOOStart("prior"); err != nil || s != sim.PriorVLLM() {
		t.Errorf("prior: %v", err)
	}
	if s, err := LOOStart("fitted"); err != nil || s != sim.FittedVLLM() {
		t.Errorf("fitted: %v", err)
	}
	if _, err := LOOStart("best"); err == nil {
		t.Error("--loo-start best accepted")
	}
	c := sim.PriorVLLM()
	by := ByName(c)
	if len(by) != len(sim.FeatureNames()) || by[sim.FeatureNames()[0]] != c[0] {
		t.Errorf("by name: %v", by)
	}
}
