package space

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
)

// probe samples configs to find what only shows on whole configs:
// conditional knobs an engine does not support, rules and `when`
// conditions that cannot be evaluated, and a space in which no point
// satisfies every rule. Each makes a space whose trials can only fail or
// that silently means something else, so each is a load error.
func (d *decoder) probe(ctx context.Context, s *Space) {
	n := d.opt.Samples
	if n == 0 {
		n = 4000
	}
	pr := sampleProbe(ctx, s, n, d.opt.Supports)
	// A `when` that lets a knob be set for an engine that does not take
	// it gains an engine guard (inactive.go); the space changed, so the
	// probe runs again on the guarded space.
	if len(pr.unsupported) > 0 && d.guardConditional(s, pr.unsupported) {
		pr = sampleProbe(ctx, s, n, d.opt.Supports)
	}
	d.reportProbe(s, pr, n)
	d.neverSet(s, pr, n)
}

// neverSet refuses a conditional knob that no sampled config has: its
// `when` is false everywhere (`when = "1 == 2"`, an engine the space
// does not search), so the knob is declared, searched by nobody, and
// silently absent from every trial.
func (d *decoder) neverSet(s *Space, pr *probeResult, n int) {
	if pr.feasible == 0 || len(d.problems) > 0 {
		return // refused already: an unsatisfiable space, a condition that cannot be evaluated
	}
	for _, p := range s.Params {
		if p.When != nil && !pr.set[p.Name] {
			d.fail("params."+p.Name+".when", "%s is false on every one of %d sampled configs, so %s would never be set: fix the condition, or remove the knob", p.When, n, p.Name)
		}
	}
}

func sampleProbe(ctx context.Context, s *Space, n int, supports func(engine, knob string) bool) *probeResult {
	rng := rand.New(rand.NewSource(1))
	pr := newProbeResult(s)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		c := s.WithTargetEngine(s.Sample(rng))
		pr.checkSupport(c, supports)
		pr.evaluate(s, c)
		pr.gpus.evaluate(s.env(c), c)
		for k := range c {
			pr.set[k] = true // "default" included: the condition held
		}
	}
	return pr
}

// exprProbe tallies one expression over the sampled configs.
type exprProbe struct {
	key       string
	expr      *Expr
	evaluated int
	failed    int
	err       error  // the first evaluation error
	example   Config // the config it occurred on
}

type probeResult struct {
	exprs       []*exprProbe // rules first, then `when` conditions
	rules       int
	feasible    int
	unsupported map[string]bool // engine + "\x00" + knob
	gpus        gpusProbe
	set         map[string]bool // knobs some sampled config has
}

func newProbeResult(s *Space) *probeResult {
	pr := &probeResult{rules: len(s.Rules), unsupported: map[string]bool{}, set: map[string]bool{}, gpus: gpusProbe{expr: gpusExpr(s.Target)}}
	for i, r := range s.Rules {
		pr.exprs = append(pr.exprs, &exprProbe{key: fmt.Sprintf("rules[%d].expr", i), expr: r.Expr})
	}
	for _, p := range s.Params {
		if p.When != nil {
			pr.exprs = append(pr.exprs, &exprProbe{key: "params." + p.Name + ".when", expr: p.When})
		}
	}
	return pr
}

func (pr *probeResult) checkSupport(c Config, supports func(engine, knob string) bool) {
	if supports == nil {
		return
	}
	for _, k := range c.Keys() {
		if k != "engine" && c.Has(k) && !supports(c.Engine(), k) {
			pr.unsupported[c.Engine()+"\x00"+k] = true
		}
	}
}

// evaluate runs every rule and condition on c. A rule that does not apply
// (a knob absent or "default") counts as kept, as in Space.Check.
func (pr *probeResult) evaluate(s *Space, c Config) {
	env := s.env(c)
	feasible := true
	for i, ep := range pr.exprs {
		ok, err := ep.expr.try(env)
		switch {
		case err == nil:
			ep.evaluated++
			feasible = feasible && (ok || i >= pr.rules)
		case !errors.Is(err, errNA):
			if ep.failed++; ep.err == nil {
				ep.err, ep.example = err, c
			}
		}
	}
	if feasible {
		pr.feasible++
	}
}

func (d *decoder) reportProbe(s *Space, pr *probeResult, n int) {
	keys := make([]string, 0, len(pr.unsupported))
	for k := range pr.unsupported {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e, knob, _ := strings.Cut(k, "\x00")
		d.fail("params."+knob, "engine %s does not support knob %q, and its `when` lets it be set for %s", e, knob, e)
	}
	for _, ep := range pr.exprs {
		d.unevaluable(ep)
	}
	d.reportGPUs(&pr.gpus)
	if pr.feasible == 0 && len(s.Rules) > 0 {
		d.fail("rules", "no point of the space satisfies every rule (%d random configs tried)", n)
	}
}

// unevaluable reports an expression that failed to evaluate on a sampled
// config. Failing on some configs is an error as well as failing on all:
// servetune would silently skip a rule (or drop a knob) exactly there.
func (d *decoder) unevaluable(ep *exprProbe) {
	switch {
	case ep.failed == 0:
	case ep.evaluated == 0:
		d.fail(ep.key, "%q can never be evaluated: %v (e.g. on %s)", ep.expr, ep.err, ep.example.Summary())
	default:
		d.fail(ep.key, "%q cannot be evaluated on %s: %v; guard it (e.g. `dp != 0 and tp %% dp == 0`) or narrow the knobs' values", ep.expr, ep.example.Summary(), ep.err)
	}
}
