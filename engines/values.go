package engines

import (
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
	if ok, err := pdRefusedValue(t, engine, knob, value); ok {
		return err
	}
	_, err := Render(space.Config{"engine": engine, knob: value}, t)
	return valueVerdict(err, t, engine, knob)
}

func declaredKnob(t space.Target, engine, knob string) bool {
	_, ok := t.Declared[engine].Knobs[knob]
	return ok
}
