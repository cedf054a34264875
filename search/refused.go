package search

import (
	"regexp"

	"github.com/servetune/servetune/space"
)

// refusal is a knob value an engine does not take at all.
type refusal struct {
	engine, knob string
	value        any
}

// refusedKnob finds the knob of c that msg says the engine does not
// take. Only wordings that blame the knob alone count (the adapters'
// "does not support knob", the simulator's "is an X option; E does not
// take it"); a message about a combination of values names no pair.
func refusedKnob(msg string, c space.Config) (string, bool) {
	for _, k := range c.Keys() {
		if k == "engine" {
			continue
		}
		q := regexp.QuoteMeta(k)
		re := regexp.MustCompile(`does not support knob "` + q + `"|\b` + q + ` is an? [\w-]+ option; [\w-]+ does not take it`)
		if re.MatchString(msg) {
			return k, true
		}
	}
	return "", false
}

// refusedIn returns a refusal c carries, unless a completed trial shows
// the engine did take that value.
func (f *Feasibility) refusedIn(c space.Config) (refusal, bool) {
	for _, r := range f.refused {
		if c.Engine() != r.engine || !c.Has(r.knob) || !SameValue(c[r.knob], r.value) {
			continue
		}
		accepted := false
		for _, o := range f.ok {
			if o.Engine() == r.engine && o.Has(r.knob) && SameValue(o[r.knob], r.value) {
				accepted = true
				break
			}
		}
		if !accepted {
			return r, true
		}
	}
	return refusal{}, false
}
