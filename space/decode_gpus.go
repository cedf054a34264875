package space

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// gpusPerTrial reads [target] gpus_per_trial: a positive integer or an
// expression string; the expression's names and its value on the
// baseline are checked once the knobs are known (checkGPUsPerTrial).
func (d *decoder) gpusPerTrial(m map[string]any) string {
	const path = "target.gpus_per_trial"
	switch v := m["gpus_per_trial"].(type) {
	case nil:
		return ""
	case int64:
		if v < 1 || v > maxTrialGPUs {
			d.fail(path, "must be a positive number of GPUs (at most %d), got %d", maxTrialGPUs, v)
			return ""
		}
		return strconv.FormatInt(v, 10)
	case string:
		if d.expr(v, path) == nil {
			return ""
		}
		return v
	default:
		d.fail(path, "must be an integer or an expression string such as \"tp * pp\", got %s", typeName(v))
		return ""
	}
}

// gpusExpr is [target] gpus_per_trial parsed, nil when the space has
// none (or it did not parse, which gpusPerTrial reported).
func gpusExpr(t Target) *Expr {
	if t.GPUsPerTrial == "" {
		return nil
	}
	e, err := ParseExpr(t.GPUsPerTrial)
	if err != nil {
		return nil
	}
	return e
}

// gpusProbe remembers the first sampled config on which gpus_per_trial
// is not a whole number of GPUs: such a space could only pack trials
// wrongly, so it is refused at load.
type gpusProbe struct {
	expr    *Expr
	bad     Config
	why     string
	checked bool
}

func (g *gpusProbe) evaluate(env map[string]any, c Config) {
	if g.expr == nil || g.bad != nil {
		return
	}
	v, err := g.expr.root.eval(env)
	if errors.Is(err, errNA) {
		return // a knob it reads is absent here: the engine's count stands
	}
	g.checked = true
	switch f, isNum := Number(v, false); {
	case err != nil:
		g.bad, g.why = c, err.Error()
	case !isNum:
		g.bad, g.why = c, "is "+describe(v)+", not a number of GPUs"
	case f < 1 || f != math.Trunc(f) || f > maxTrialGPUs:
		g.bad, g.why = c, fmt.Sprintf("is %v, not a positive whole number of GPUs", f)
	}
}

func (d *decoder) reportGPUs(g *gpusProbe) {
	if g.bad != nil {
		d.fail("target.gpus_per_trial", "%q on %s: %s", g.expr, g.bad.Summary(), g.why)
	}
}
