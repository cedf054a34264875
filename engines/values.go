package engines

import (
	"errors"
	"strings"

	"github.com/servetune/servetune/space"
)

// RefusedValue says why the target's version of engine refuses value for
// knob whatever the other knobs are (a kv_cache_dtype the release does
// not know, say), or nil. Every trial with that value would fail as an
// invalid config, so space refuses it at load (space.Options).
func RefusedValue(t space.Target, engine, knob string, value any) error {
	if knob == "engine" || !Supports(engine, knob) && !declaredKnob(t, engine, knob) {
		return nil // not this engine's knob: the space's own checks say so
	}
	_, err := Render(space.Config{"engine": engine, knob: value}, t)
	if err == nil {
		return nil
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		// Only an enumeration's verdict is about the value alone; other
		// refusals may depend on the knobs left out here.
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

func declaredKnob(t space.Target, engine, knob string) bool {
	_, ok := t.Declared[engine].Knobs[knob]
	return ok
}
