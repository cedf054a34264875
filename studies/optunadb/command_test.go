package optunadb

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// A trial's command attribute is what deploys it: one line for one
// server, and for a disaggregated trial every process's line (it once
// rendered such a config as one server, was refused, and wrote none).
func TestCommandAttributeDeploysEveryProcess(t *testing.T) {
	sp := fixtureSpaceParsed(t)
	one := userAttrs(sp, store.Trial{Number: 1, State: store.Complete, Config: space.Config{"max_running": int64(64)}})
	if c, _ := one["command"].(string); !strings.Contains(c, "--max-running-requests=64") || strings.Contains(c, "\n") {
		t.Errorf("one server's command attribute = %q, want one line with its knob", c)
	}
	pd := space.Config{engines.KnobDisaggregation: engines.Disaggregated, engines.KnobPrefillInstances: int64(2),
		engines.KnobDecodeInstances: int64(1), "decode_max_running": int64(32)}
	d, err := engines.Deploy(pd, sp.Target)
	if err != nil {
		t.Fatal(err)
	}
	attrs := userAttrs(sp, store.Trial{Number: 2, State: store.Complete, Config: pd})
	got, _ := attrs["command"].(string)
	if got == "" {
		t.Fatalf("a disaggregated trial's command attribute is empty: %v", attrs)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != 2*len(d.Processes) {
		t.Fatalf("command attribute has %d lines, want a name and a command for each of %d processes:\n%s", len(lines), len(d.Processes), got)
	}
	for i, pr := range d.Processes {
		if lines[2*i] != "# "+pr.Name() || lines[2*i+1] != shellLine(pr.Command) {
			t.Errorf("process %d: %q / %q, want %s's command %q", i, lines[2*i], lines[2*i+1], pr.Name(), shellLine(pr.Command))
		}
	}
	if !strings.Contains(got, "--max-running-requests=32") || !strings.Contains(got, "--disaggregation-mode=decode") {
		t.Errorf("the decode server's own knobs and role are missing:\n%s", got)
	}
}
