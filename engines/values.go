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
	if err := extraArgsSet(t, engine, knob); err != nil {
		return err
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

// extraArgsSet refuses a searched knob that [target.engines.<engine>]
// extra_args also sets: extra_args come after the rendered flags, so the
// engine took the last (extra_args') value and every config measured the
// same one, whatever the search proposed. Only an engine whose command
// lines parse back into knobs (a Parser) is checked.
func extraArgsSet(t space.Target, engine, knob string) error {
	extra := t.Engines[engine].ExtraArgs
	if len(extra) == 0 {
		return nil
	}
	v, _ := ParseVersion(t.Engines[engine].Version)
	p, err := ParseArgs(engine, extra, v)
	if err != nil || !p.Config.Has(knob) {
		return nil
	}
	return invalid("target.engines.%s.extra_args %q also sets %s (extra_args come last, so the engine would run every config at their value): drop it from extra_args, or stop searching %s", engine, extra, knob, knob)
}
