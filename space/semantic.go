package space

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/servetune/servetune/internal/suggest"
)

// semantic checks what needs the whole space: names in expressions,
// engines and their knobs, objectives' profiles, the baseline, and that
// some point satisfies every rule.
func (d *decoder) semantic(ctx context.Context, s *Space) {
	known := map[string]bool{}
	for _, p := range s.Params {
		known[p.Name] = true
	}
	vars := s.Vars()
	checkIdents := func(e *Expr, path string) {
		for _, id := range e.Idents() {
			if _, isVar := vars[id]; !known[id] && !isVar && id != "engine" {
				d.fail(path, "names %q, which is not a knob of this space (knobs: %s)", id, strings.Join(names(s.Params), ", "))
			}
		}
	}
	d.gated(s)
	for _, p := range s.Params {
		if p.When != nil {
			checkIdents(p.When, "params."+p.Name+".when")
			d.selfReference(p)
		}
	}
	for i, r := range s.Rules {
		checkIdents(r.Expr, fmt.Sprintf("rules[%d].expr", i))
	}
	if e := gpusExpr(s.Target); e != nil {
		checkIdents(e, "target.gpus_per_trial")
	}
	if _, err := s.Order(); err != nil {
		d.fail("params."+cycleStart(s)+".when", "%v", err)
	}
	d.engines(s)
	profiles := map[string]bool{}
	for _, p := range s.Profiles {
		profiles[p.Name] = true
	}
	for i, o := range s.Objectives {
		if o.Profile != "" && !profiles[o.Profile] {
			d.fail(fmt.Sprintf("objectives[%d].profile", i), "profile %q is not in profiles.run", o.Profile)
		}
	}
	for i, c := range s.Constraints {
		if c.Profile != "" && !profiles[c.Profile] {
			d.fail(fmt.Sprintf("constraints[%d].profile", i), "profile %q is not in profiles.run", c.Profile)
		}
	}
	d.definedMetrics(s)
	d.directions(s)
	d.meaning(s)
	d.gpuTypes(s)
	d.nodeSelectorTypes(s)
	d.config(s, s.Baseline, "baseline")
	for i, c := range s.Enqueue {
		d.config(s, c, fmt.Sprintf("enqueue[%d]", i))
	}
	if len(d.problems) == 0 {
		d.probe(ctx, s)
	}
	if len(d.problems) == 0 {
		d.fit(ctx, s)
	}
}

// selfReference reports a `when` that reads its own knob: the knob is
// absent while its condition is decided, so it would never exist.
func (d *decoder) selfReference(p Param) {
	if slices.Contains(p.When.Idents(), p.Name) {
		d.fail("params."+p.Name+".when", "reads %s itself; a knob does not exist while its own condition is decided, so it would never be set", p.Name)
	}
}

// config checks the baseline or an enqueued config: every knob declared,
// every value in its domain, every rule kept. Knobs may be left out; they
// take the engine's defaults.
func (d *decoder) config(s *Space, c Config, path string) {
	unknown := false
	for _, k := range c.Keys() {
		if _, ok := s.Param(k); !ok && !(k == "engine" && s.Target.Engine != "") {
			d.fail(path+"."+k, "is not a knob of this space")
			unknown = true
		}
	}
	if unknown {
		return
	}
	d.unsupportedIn(s, c, path)
	d.gatedIn(c, path)
	for _, p := range s.CheckConfig(c) {
		key := path
		if p.Key != "" {
			key += "." + p.Key
		}
		d.fail(key, "%s", p.Msg)
	}
}

func (d *decoder) engines(s *Space) {
	engines := s.Engines()
	if len(engines) == 0 {
		d.fail("params", "no engine: add [params.engine] values = [...] or target.engine")
		return
	}
	if d.opt.Engines != nil {
		for _, e := range engines {
			if !slices.Contains(d.opt.Engines, e) {
				d.fail("params.engine.values", "unknown engine %q%s (known: %s)", e, suggest.Hint(e, d.opt.Engines), strings.Join(d.opt.Engines, ", "))
			}
		}
	}
	if d.opt.Supports == nil {
		return
	}
	// An unconditional knob some engines take is inactive for the others
	// (inactive.go); one that none takes is an error. Conditional knobs
	// are checked on sampled configs (probe).
	for i := range s.Params {
		p := &s.Params[i]
		if p.Name == "engine" || p.When != nil || onlyDefault(*p) {
			continue
		}
		takers, partial := d.supportedBy(engines, p.Name)
		switch {
		case !partial:
		case len(takers) > 0 && s.hasEngineKnob():
			guardEngines(p, takers)
		default:
			for _, e := range engines {
				if d.opt.Supports(e, p.Name) {
					continue
				}
				d.fail("params."+p.Name, "engine %s does not support knob %q%s", e, p.Name, d.unsupportedHint(e, p.Name, len(takers) > 0))
			}
		}
	}
}

func onlyDefault(p Param) bool {
	if p.Kind != Categorical {
		return false
	}
	for _, v := range p.Values {
		if s, ok := v.(string); !ok || s != Default {
			return false
		}
	}
	return true
}

// cycleStart names the first knob whose condition is part of a cycle.
func cycleStart(s *Space) string {
	placed := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, p := range s.Params {
			if !placed[p.Name] && s.depsPlaced(p, placed) {
				placed[p.Name], changed = true, true
			}
		}
	}
	for _, p := range s.Params {
		if !placed[p.Name] {
			return p.Name
		}
	}
	return ""
}

func names(ps []Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// Order returns the params so that every knob comes after the knobs its
// `when` reads; among independent knobs the declared order is kept.
func (s *Space) Order() ([]Param, error) {
	var out []Param
	placed := map[string]bool{}
	for len(out) < len(s.Params) {
		progress := false
		for _, p := range s.Params {
			if placed[p.Name] || !s.depsPlaced(p, placed) {
				continue
			}
			out = append(out, p)
			placed[p.Name] = true
			progress = true
		}
		if !progress {
			var cyc []string
			for _, p := range s.Params {
				if !placed[p.Name] {
					cyc = append(cyc, p.Name)
				}
			}
			return nil, fmt.Errorf("the `when` conditions of %s depend on each other in a cycle", strings.Join(cyc, ", "))
		}
	}
	return out, nil
}

func (s *Space) depsPlaced(p Param, placed map[string]bool) bool {
	if p.When == nil {
		return true
	}
	for _, id := range p.When.Idents() {
		if _, isParam := s.Param(id); isParam && !placed[id] && id != p.Name {
			return false
		}
	}
	return true
}

// Sample draws a uniformly random config (log-uniform for log domains).
func (s *Space) Sample(rng *rand.Rand) Config {
	order, err := s.Order()
	if err != nil {
		order = s.Params
	}
	c := Config{}
	for _, p := range order {
		if s.Active(p, c) {
			c[p.Name] = p.Random(rng)
		}
	}
	return c
}

// unsupportedHint ends the message for a knob engine e does not take: a
// knob no engine of the space takes is likely a typo of one e does; one
// that others take can be made conditional.
func (d *decoder) unsupportedHint(e, knob string, othersTake bool) string {
	if othersTake {
		return fmt.Sprintf(" (only \"default\" is allowed for it; or add when = 'engine != \"%s\"')", e)
	}
	return d.knobHint(e, knob) + " (only \"default\" is allowed for it)"
}

// knobHint is did-you-mean among the knobs engine e takes.
func (d *decoder) knobHint(e, knob string) string {
	if d.opt.Knobs == nil {
		return ""
	}
	return suggest.Hint(knob, d.opt.Knobs(e))
}
