package space

import (
	"fmt"
	"strconv"
	"strings"
)

// A knob that some of the space's engines take and others do not is
// inactive for the others: its `when` gains `engine in [...]` (the
// engines that take it), so samplers never propose it there, configs
// never store it and the engine's command is what it would be without
// the knob. Writing that `when` by hand is what the user would otherwise
// have to do after a refused first trial; a knob no engine of the space
// takes stays an error, since it could never be set.

// supportedBy lists the engines of the space that take knob, and whether
// some engine of the space does not.
func (d *decoder) supportedBy(engines []string, knob string) (takers []string, partial bool) {
	for _, e := range engines {
		if d.opt.Supports(e, knob) {
			takers = append(takers, e)
		} else {
			partial = true
		}
	}
	return takers, partial
}

// guardEngines restricts p to takers by conjoining `engine in [...]` to
// its `when`. The guard is built from quoted names, so it always parses.
func guardEngines(p *Param, takers []string) {
	quoted := make([]string, len(takers))
	for i, e := range takers {
		quoted[i] = strconv.Quote(e)
	}
	src := fmt.Sprintf("engine in [%s]", strings.Join(quoted, ", "))
	if p.When != nil {
		src = fmt.Sprintf("(%s) and %s", p.When, src)
	}
	e, err := ParseExpr(src)
	if err != nil {
		panic(fmt.Sprintf("space: engine guard %q: %v", src, err)) // quoted names always parse
	}
	p.When = e
}

// guardConditional adds the engine guard to the conditional knobs the
// probe found set for an engine that does not take them (pairs are
// engine + "\x00" + knob) and reports whether it guarded any; a knob
// none of the space's engines takes is left for the probe to report.
func (d *decoder) guardConditional(s *Space, pairs map[string]bool) bool {
	knobs := map[string]bool{}
	for k := range pairs {
		_, knob, _ := strings.Cut(k, "\x00")
		knobs[knob] = true
	}
	guarded := false
	for i := range s.Params {
		p := &s.Params[i]
		if !knobs[p.Name] {
			continue
		}
		if takers, _ := d.supportedBy(s.Engines(), p.Name); len(takers) > 0 && s.hasEngineKnob() {
			guardEngines(p, takers)
			guarded = true
		}
	}
	return guarded
}

// hasEngineKnob: only a space that chooses the engine can make a knob
// inactive for some engines; with target.engine there is one engine.
func (s *Space) hasEngineKnob() bool {
	_, ok := s.Param("engine")
	return ok
}

// unsupportedIn reports the knobs of a baseline or enqueued config that
// its engine does not take: samplers never set them (the guard), and
// the engine would refuse the config at its trial.
func (d *decoder) unsupportedIn(s *Space, c Config, path string) {
	if d.opt.Supports == nil {
		return
	}
	e := FormatValue(s.WithTargetEngine(c)["engine"])
	for _, k := range c.Keys() {
		if k != "engine" && !d.opt.Supports(e, k) {
			d.fail(path+"."+k, "engine %s does not take knob %q%s; leave it out of this config", e, k, d.knobHint(e, k))
		}
	}
}
