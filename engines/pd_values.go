package engines

import (
	"errors"
	"slices"
	"strings"

	"github.com/servetune/servetune/space"
)

// pdRefusedValue is RefusedValue for the knobs of the PD layer: a side
// knob is its aggregated knob's verdict; disaggregation = "pd" and a
// transfer backend are the version's verdict on a minimal deployment.
func pdRefusedValue(t space.Target, engine, knob string, value any) (handled bool, err error) {
	for _, role := range []string{RolePrefill, RoleDecode} {
		if base, ok := strings.CutPrefix(knob, role+"_"); ok && slices.Contains(sideKnobs(), base) {
			return true, RefusedValue(t, engine, base, value)
		}
	}
	switch knob {
	case KnobDisaggregation:
		if s, _ := value.(string); s != Disaggregated {
			return true, nil
		}
	case KnobKVTransferBackend:
	default:
		return false, nil
	}
	cfg := space.Config{KnobEngine: engine, KnobDisaggregation: Disaggregated, knob: value}
	if _, ok := Lookup(engine, t); !ok {
		return true, nil
	}
	_, err = RenderPD(cfg, t, PDPorts{})
	return true, valueVerdict(err, t, engine, knob)
}

// valueVerdict keeps an enumeration's refusal of the value alone: other
// refusals may depend on the knobs left out of the probe.
func valueVerdict(err error, t space.Target, engine, knob string) error {
	if err == nil {
		return nil
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if _, rest, ok := strings.Cut(line, "knob "+knob+": "); ok && strings.Contains(rest, "does not accept") {
			v := t.Engines[engine].Version
			if v == "" {
				v = "(newest known)"
			}
			return errors.New(engine + " " + v + ": " + rest)
		}
	}
	return nil
}

// PDGate says that knob belongs to a disaggregated deployment and exists
// only when disaggregation = "pd" (space.Options.Gated).
func PDGate(knob string) (gate, value string, ok bool) {
	if knob == KnobDisaggregation || !slices.Contains(pdKnobs(), knob) {
		return "", "", false
	}
	return KnobDisaggregation, Disaggregated, true
}
