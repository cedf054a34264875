package studies

import (
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/studies/store"
)

func TestCommonFailure(t *testing.T) {
	oom := func(msg string) store.Trial {
		return store.Trial{State: store.Infeasible, Failure: &engines.Failure{Class: engines.OOM, Message: msg}}
	}
	skipped := store.Trial{State: store.Infeasible, Reason: "breaks a rule"}
	for _, c := range []struct {
		name    string
		trials  []store.Trial
		class   engines.Class
		example string
	}{
		{"one class", []store.Trial{oom("first"), skipped, oom("second")}, engines.OOM, "first"},
		{"two classes", []store.Trial{oom("a"), {Failure: &engines.Failure{Class: engines.StartupTimeout}}}, "", ""},
		{"no failure", []store.Trial{skipped}, "", ""},
	} {
		class, example := CommonFailure(c.trials)
		if class != c.class || example != c.example {
			t.Errorf("%s: %q %q, want %q %q", c.name, class, example, c.class, c.example)
		}
	}
	got := NoCompleteError{Total: 3, Class: engines.OOM, Example: "CUDA out of memory"}.Error()
	if got != "the study has no complete trial (3 trials): every trial failed as oom (CUDA out of memory); see `servetune show` for the details" {
		t.Errorf("%s", got)
	}
	if got := (NoCompleteError{Total: 2}).Error(); got != "the study has no complete trial (2 trials): every config failed; see `servetune show` for the reasons" {
		t.Errorf("%s", got)
	}
}
