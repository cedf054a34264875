package space

import (
	"fmt"
	"strconv"
)

// A gated knob exists only when another knob has one value: the per-side
// knobs of a disaggregated deployment (prefill_tp, decode_max_running,
// prefill_instances, …) exist only when disaggregation = "pd". The
// engines know which knobs are gated (Options.Gated); the space makes
// the gate a `when` the user need not write, and refuses a gated knob
// its gate could never open: it would be set on configs that ignore it.

// gate is the knob and value that open a gated knob.
type gate struct{ knob, value string }

// gated adds each gated knob's gate to its `when`, or reports the knob
// when the space has no such gate or its gate never takes the value.
func (d *decoder) gated(s *Space) {
	if d.opt.Gated == nil {
		return
	}
	for i := range s.Params {
		p := &s.Params[i]
		g, ok := d.gateOf(p.Name)
		if !ok {
			continue
		}
		gp, ok := s.Param(g.knob)
		switch {
		case !ok:
			d.fail("params."+p.Name, "exists only when %s = %q, and this space has no knob %s: add [params.%s] values = [\"none\", %q], or leave %s out",
				g.knob, g.value, g.knob, g.knob, g.value, p.Name)
		case !takes(gp, g.value):
			d.fail("params."+p.Name, "exists only when %s = %q, which params.%s never takes (values: %s)", g.knob, g.value, g.knob, valuesText(gp))
		default:
			guardGate(p, g)
		}
	}
}

func (d *decoder) gateOf(knob string) (gate, bool) {
	k, v, ok := d.opt.Gated(knob)
	return gate{k, v}, ok
}

// takes reports whether a categorical knob offers value.
func takes(p Param, value string) bool {
	if p.Kind != Categorical {
		return false
	}
	for _, v := range p.Values {
		if FormatValue(v) == value {
			return true
		}
	}
	return false
}

func valuesText(p Param) string {
	if p.Kind != Categorical {
		return "not a categorical knob"
	}
	out := ""
	for i, v := range p.Values {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(FormatValue(v))
	}
	return out
}

// guardGate conjoins `knob == "value"` to p's `when`; quoted, so it
// always parses.
func guardGate(p *Param, g gate) {
	src := fmt.Sprintf("%s == %s", g.knob, strconv.Quote(g.value))
	if p.When != nil {
		src = fmt.Sprintf("(%s) and %s", p.When, src)
	}
	e, err := ParseExpr(src)
	if err != nil {
		panic(fmt.Sprintf("space: gate %q: %v", src, err)) // a knob name and a quoted value always parse
	}
	p.When = e
}

// gatedIn reports the gated knobs a baseline or enqueued config sets
// while its gate is shut.
func (d *decoder) gatedIn(c Config, path string) {
	if d.opt.Gated == nil {
		return
	}
	for _, k := range c.Keys() {
		g, ok := d.gateOf(k)
		if !ok || !c.Has(k) || c.Has(g.knob) && c.String(g.knob) == g.value {
			continue
		}
		is := "does not set " + g.knob
		if c.Has(g.knob) {
			is = fmt.Sprintf("sets %s = %q", g.knob, c.String(g.knob))
		}
		d.fail(path+"."+k, "is set, but it exists only when %s = %q, and this config %s", g.knob, g.value, is)
	}
}
