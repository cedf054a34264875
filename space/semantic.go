package space

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
)

// semantic checks what needs the whole space: names in expressions,
// engines and their knobs, objectives' profiles, the baseline, and that
// some point satisfies every rule.
func (d *decoder) semantic(s *Space) {
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
	for _, p := range s.Params {
		if p.When != nil {
			checkIdents(p.When, "params."+p.Name+".when")
		}
	}
	for i, r := range s.Rules {
		checkIdents(r.Expr, fmt.Sprintf("rules[%d].expr", i))
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
	for _, k := range s.Baseline.Keys() {
		if !known[k] && !(k == "engine" && s.Target.Engine != "") {
			d.fail("baseline."+k, "is not a knob of this space")
		}
	}
	for i, c := range s.Enqueue {
		for _, k := range c.Keys() {
			if !known[k] && !(k == "engine" && s.Target.Engine != "") {
				d.fail(fmt.Sprintf("enqueue[%d].%s", i, k), "is not a knob of this space")
			}
		}
	}
	if len(d.problems) == 0 {
		d.satisfiable(s)
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
			if !containsStr(d.opt.Engines, e) {
				d.fail("params.engine.values", "unknown engine %q (known: %s)", e, strings.Join(d.opt.Engines, ", "))
			}
		}
	}
	if d.opt.Supports == nil {
		return
	}
	// Unconditional knobs must be supported by every engine the space can
	// pick; conditional ones are checked on sampled configs below.
	for _, p := range s.Params {
		if p.Name == "engine" || p.When != nil || onlyDefault(p) {
			continue
		}
		for _, e := range engines {
			if !d.opt.Supports(e, p.Name) {
				d.fail("params."+p.Name, "engine %s does not support knob %q (only \"default\" is allowed for it; or add when = 'engine != \"%s\"')", e, p.Name, e)
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

// satisfiable samples configs: it reports conditional knobs that an engine
// does not support, and a space in which no sampled point passes the rules.
func (d *decoder) satisfiable(s *Space) {
	n := d.opt.Samples
	if n == 0 {
		n = 4000
	}
	rng := rand.New(rand.NewSource(1))
	unsupported := map[string]bool{}
	ok := 0
	for i := 0; i < n; i++ {
		c := s.WithTargetEngine(s.Sample(rng))
		if d.opt.Supports != nil {
			for _, k := range c.Keys() {
				if k != "engine" && c.Has(k) && !d.opt.Supports(c.Engine(), k) {
					unsupported[c.Engine()+"\x00"+k] = true
				}
			}
		}
		if s.Check(c) == nil {
			ok++
		}
	}
	keys := make([]string, 0, len(unsupported))
	for k := range unsupported {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e, knob, _ := strings.Cut(k, "\x00")
		d.fail("params."+knob, "engine %s does not support knob %q, and its `when` lets it be set for %s", e, knob, e)
	}
	if ok == 0 && len(s.Rules) > 0 {
		d.fail("rules", "no point of the space satisfies every rule (%d random configs tried)", n)
	}
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
