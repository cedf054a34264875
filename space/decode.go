package space

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servetune/servetune/bench"
)

func (d *decoder) space(raw map[string]any) *Space {
	d.unknown(raw, "", "study", "target", "objectives", "constraints", "profiles", "params", "rules", "baseline", "enqueue", "slo", "engines", "include")
	s := &Space{File: d.file}
	s.Study = d.study(d.table(raw, "study", "study", "name", "storage", "sampler", "n_trials", "timeout", "seed", "on_drift", "prior", "repeat"))
	declared := d.useDeclared(d.declared(raw))
	s.Target = d.target(d.table(raw, "target", "target", targetKeys...))
	s.Target.Declared = declared
	s.SLO = d.slo(raw)
	s.Profiles = withSLO(d.profiles(d.table(raw, "profiles", "profiles", "run", "custom")), s.SLO)
	s.Objectives = d.objectives(d.tables(raw, "objectives"))
	d.sampler(s.Study.Sampler, len(s.Objectives))
	s.Constraints = d.constraints(d.tables(raw, "constraints"))
	s.Params = d.params(d.table(raw, "params", "params"))
	s.Rules = d.rules(d.tables(raw, "rules"))
	d.unusedEngineTargets(s)
	s.Baseline = d.baseline(d.table(raw, "baseline", "baseline"), "baseline")
	if _, given := raw["baseline"]; given && s.Baseline == nil {
		// An empty table reads as no baseline: no trial measures the
		// engines' defaults and every "vs baseline" figure is missing.
		d.fail("baseline", "is empty: give the baseline's knob = value pairs (engine = \"vllm\" for the engine's defaults), or remove the table")
	}
	for i, m := range d.tables(raw, "enqueue") {
		if len(m) == 0 {
			d.fail(fmt.Sprintf("enqueue[%d]", i), "is empty: give the config's knob = value pairs (the engines' defaults are the baseline's to measure)")
		}
		if c := d.baseline(m, fmt.Sprintf("enqueue[%d]", i)); c != nil {
			s.Enqueue = append(s.Enqueue, c)
		}
	}
	d.engineAPIs(s)
	return s
}

// tables reads an array of tables ([[key]]).
func (d *decoder) tables(raw map[string]any, key string) []map[string]any {
	v, ok := raw[key]
	if !ok {
		return nil
	}
	switch x := v.(type) {
	case []map[string]any:
		return x
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				d.fail(key, "must be an array of tables ([[%s]]), has %s", key, typeName(e))
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	d.fail(key, "must be an array of tables ([[%s]]), got %s", key, typeName(v))
	return nil
}

func (d *decoder) study(m map[string]any) Study {
	st := Study{
		Name:    d.str(m, "name", "study", ""),
		Storage: d.storage(m),
		Sampler: d.str(m, "sampler", "study", ""),
		NTrials: int(d.integer(m, "n_trials", "study", 20)),
		Timeout: d.duration(m, "timeout", "study"),
		Seed:    d.integer(m, "seed", "study", 0),
		OnDrift: d.oneOf(m, "on_drift", "study", "refuse", "warn"),
		Prior:   d.oneOf(m, "prior", "study", "", PriorSim, PriorNone),
		Repeat:  int(d.integer(m, "repeat", "study", 1)),
	}
	if st.Sampler == "" {
		st.Sampler, st.SamplerDefaulted = DefaultSampler(st.Prior), true
	}
	d.studyName(st.Name)
	if p, given := m["prior"].(string); given && strings.TrimSpace(p) == "" {
		// "" is the code's "left out" (the sampler's default prior);
		// written, it is a slip. (An engine's api = "" is documented:
		// both endpoints.)
		d.fail("study.prior", "is empty: give \"sim\" or \"none\", or leave prior out for the sampler's default")
	}
	if s, given := m["sampler"].(string); given && strings.TrimSpace(s) == "" {
		d.fail("study.sampler", "is empty: name a sampler, or leave sampler out for the default")
	}
	if st.Repeat < 1 || st.Repeat > MaxRepeat {
		d.fail("study.repeat", "must be between 1 and %d, got %d", MaxRepeat, st.Repeat)
	}
	if st.NTrials <= 0 || st.NTrials > MaxTrials {
		d.fail("study.n_trials", "must be a positive integer of at most %d, got %d", MaxTrials, st.NTrials)
	}
	d.boundStudy(st)
	return st
}

func (d *decoder) objectives(ts []map[string]any) []Objective {
	var out []Objective
	for i, m := range ts {
		path := fmt.Sprintf("objectives[%d]", i)
		d.unknown(m, path, "metric", "direction", "profile")
		o := Objective{
			Metric:    d.str(m, "metric", path, ""),
			Direction: Direction(d.str(m, "direction", path, "")),
			Profile:   d.str(m, "profile", path, ""),
		}
		if o.Metric == "" {
			d.fail(join(path, "metric"), "is required")
		} else if d.opt.Metric != nil && !d.opt.Metric(o.Metric) {
			d.fail(join(path, "metric"), "unknown metric %q%s (e.g. total_tps, output_tps, request_tps, mean_tpot_ms, p99_ttft_ms, mean_e2e_s)", o.Metric, metricHint(o.Metric))
		}
		if o.Direction != Maximize && o.Direction != Minimize {
			d.fail(join(path, "direction"), "must be \"maximize\" or \"minimize\", got %q", o.Direction)
		}
		d.blankProfile(m, path)
		out = append(out, o)
	}
	if len(out) == 0 {
		d.fail("objectives", "at least one [[objectives]] is required")
	}
	return out
}

func (d *decoder) constraints(ts []map[string]any) []Constraint {
	var out []Constraint
	for i, m := range ts {
		path := fmt.Sprintf("constraints[%d]", i)
		d.unknown(m, path, "expr", "profile")
		src := d.str(m, "expr", path, "")
		c, err := parseConstraint(src)
		if err != nil {
			d.fail(join(path, "expr"), "%v", err)
			continue
		}
		if d.opt.Metric != nil && !d.opt.Metric(c.Metric) {
			d.fail(join(path, "expr"), "unknown metric %q%s", c.Metric, metricHint(c.Metric))
		}
		if c.Unsatisfiable() {
			why := "is never negative"
			if IsShare(c.Metric) && c.Bound >= 0 {
				why = "is a share, at most 1"
			}
			d.fail(join(path, "expr"), "%q can never hold: %s %s, so every trial would miss it", src, c.Metric, why)
		}
		c.Profile = d.str(m, "profile", path, "")
		d.blankProfile(m, path)
		d.farBound(c, join(path, "expr"))
		out = append(out, c)
	}
	return out
}

// unusedEngineTargets notes a [target.engines.NAME] for an engine the
// space never runs (neither target.engine nor a value of params.engine):
// its command, version and env are never used. A note, not a refusal,
// as for an unused custom profile: a target file may keep the engines
// of several spaces.
func (d *decoder) unusedEngineTargets(s *Space) {
	var used []string
	if s.Target.Engine != "" {
		used = append(used, s.Target.Engine)
	}
	for _, p := range s.Params {
		if p.Name == "engine" {
			for _, v := range p.Values {
				if e, ok := v.(string); ok {
					used = append(used, e)
				}
			}
		}
	}
	if len(used) == 0 {
		return // the default engine: left to the runner
	}
	for _, name := range slices.Sorted(maps.Keys(s.Target.Engines)) {
		if !slices.Contains(used, name) {
			d.note("target.engines."+name, "configures %s, which this space never runs (engines: %s)", name, strings.Join(used, ", "))
		}
	}
}

// blankProfile refuses profile = "": it read as "every profile" (the
// key left out), not the profile its author meant to name.
func (d *decoder) blankProfile(m map[string]any, path string) {
	if p, given := m["profile"].(string); given && strings.TrimSpace(p) == "" {
		d.fail(join(path, "profile"), "is empty: name a profile of profiles.run, or leave profile out for every profile")
	}
}

// farBound refuses an upper bound on a latency past anything a profile
// can measure (1e300 ms): no request lasts longer than a profile may run
// (bench.MaxSpan), so the bound holds on every trial and constrains
// nothing — a typo's extra zeros, as an [slo] bound of the same size is.
func (d *decoder) farBound(c Constraint, key string) {
	if c.Relative || (c.Op != "<" && c.Op != "<=") {
		return
	}
	limit, unit := 0.0, ""
	switch {
	case strings.HasSuffix(c.Metric, "_ms"):
		limit, unit = bench.MaxSLOMs, "ms"
	case strings.HasSuffix(c.Metric, "_s"):
		limit, unit = bench.MaxSpan.Seconds(), "s"
	default:
		return
	}
	if c.Bound > limit {
		d.fail(key, "%q bounds %s at %v %s, longer than the %v a profile may run: it would hold on every trial", c.Src, c.Metric, c.Bound, unit, bench.MaxSpan)
	}
}

// parseConstraint reads "METRIC OP NUMBER", or a guard relative to the
// baseline: "METRIC OP FACTOR * baseline" (or "METRIC OP baseline").
func parseConstraint(src string) (Constraint, error) {
	for _, op := range []string{"<=", ">=", "<", ">"} {
		if i := strings.Index(src, op); i > 0 {
			metric := strings.TrimSpace(src[:i])
			bound, relative, ok := parseBound(strings.TrimSpace(src[i+len(op):]))
			if !ok || metric == "" || strings.ContainsAny(metric, " <>=") {
				break
			}
			return Constraint{Metric: metric, Op: op, Bound: bound, Relative: relative, Src: src}, nil
		}
	}
	return Constraint{}, fmt.Errorf("must read METRIC <= NUMBER (or <, >=, >), or METRIC >= FACTOR * baseline, got %q", src)
}

// parseBound reads a constraint's right-hand side: a finite number, or
// a positive finite factor of the baseline's value on either side of *.
func parseBound(rhs string) (bound float64, relative, ok bool) {
	factor := rhs
	if a, b, found := strings.Cut(rhs, "*"); found {
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		switch {
		case b == Baseline:
			factor, relative = a, true
		case a == Baseline:
			factor, relative = b, true
		default:
			return 0, false, false
		}
	} else if rhs == Baseline {
		return 1, true, true
	}
	bound, err := strconv.ParseFloat(factor, 64)
	if err != nil || !isFinite(bound) || relative && bound <= 0 {
		return 0, false, false
	}
	return bound, relative, true
}

func (d *decoder) params(m map[string]any) []Param {
	var out []Param
	for _, name := range d.paramOrder(m) {
		path := "params." + name
		pm, ok := m[name].(map[string]any)
		if !ok {
			d.fail(path, "must be a table, got %s", typeName(m[name]))
			continue
		}
		d.unknown(pm, path, "values", "low", "high", "step", "log", "when")
		p, ok := d.param(name, path, pm)
		if ok {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		d.fail("params", "at least one [params.<knob>] is required")
	}
	return out
}

// paramOrder is the declaration order of [params.*], from the TOML
// metadata, so greedy search and reports follow the file.
func (d *decoder) paramOrder(m map[string]any) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range d.keyOrder {
		if len(k) >= 2 && k[0] == "params" && !seen[k[1]] {
			if _, ok := m[k[1]]; ok {
				seen[k[1]] = true
				out = append(out, k[1])
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !seen[k] {
			out = append(out, k)
		}
	}
	return out
}

func (d *decoder) param(name, path string, pm map[string]any) (Param, bool) {
	p := Param{Name: name}
	if w, given := pm["when"].(string); given && strings.TrimSpace(w) == "" {
		d.fail(join(path, "when"), "is empty: write the condition, or leave when out for a knob that always exists")
	}
	if w := d.str(pm, "when", path, ""); strings.TrimSpace(w) != "" {
		p.When = d.expr(w, join(path, "when"))
	}
	if vals, has := pm["values"]; has {
		if _, hasLow := pm["low"]; hasLow {
			d.fail(path, "give either values or low/high, not both")
		}
		arr, ok := vals.([]any)
		if !ok {
			d.fail(join(path, "values"), "must be an array, got %s", typeName(vals))
			return p, false
		}
		if len(arr) == 0 {
			d.fail(join(path, "values"), "is empty")
			return p, false
		}
		p.Kind = Categorical
		p.Values = d.values(name, join(path, "values"), arr)
		return p, p.Values != nil
	}
	return d.rangeParam(p, path, pm)
}

// rangeParam reads a low/high domain, integer when both ends are.
func (d *decoder) rangeParam(p Param, path string, pm map[string]any) (Param, bool) {
	lowV, hasLow := pm["low"]
	highV, hasHigh := pm["high"]
	if !hasLow || !hasHigh {
		d.fail(path, "needs values = [...] or both low and high")
		return p, false
	}
	low, ok1 := d.number(pm, "low", path)
	high, ok2 := d.number(pm, "high", path)
	if !ok1 || !ok2 {
		return p, false
	}
	_, lowInt := lowV.(int64)
	_, highInt := highV.(int64)
	p.Kind, p.Low, p.High = Float, low, high
	if lowInt && highInt {
		p.Kind = Int
	}
	p.Log = d.boolean(pm, "log", path)
	if st, ok := d.number(pm, "step", path); ok {
		p.Step = st
		if _, stepInt := pm["step"].(int64); p.Kind == Int && !stepInt {
			d.fail(join(path, "step"), "must be an integer for an integer range, got %v", st)
		}
		if st <= 0 {
			d.fail(join(path, "step"), "must be positive, got %v", st)
		}
	}
	switch {
	case !isFinite(low) || !isFinite(high):
		d.fail(path, "low and high must be finite")
	case low > high:
		d.fail(path, "empty domain: low (%v) is greater than high (%v)", FormatValue(lowV), FormatValue(highV))
	case p.Log && low <= 0:
		d.fail(join(path, "log"), "a log domain needs low > 0, got %v", low)
	case p.Log && p.Step > 0:
		d.fail(join(path, "log"), "log and step cannot be combined")
	case p.Step > high-low && high > low:
		d.fail(join(path, "step"), "step %v is larger than the range %v..%v", p.Step, low, high)
	}
	d.rangeSize(p, path)
	d.legalRange(p, path, lowV, highV)
	return p, true
}

func (d *decoder) rules(ts []map[string]any) []Rule {
	var out []Rule
	for i, m := range ts {
		path := fmt.Sprintf("rules[%d]", i)
		d.unknown(m, path, "expr", "message")
		src := d.str(m, "expr", path, "")
		if src == "" {
			d.fail(join(path, "expr"), "is required")
			continue
		}
		if e := d.expr(src, join(path, "expr")); e != nil {
			out = append(out, Rule{Expr: e, Message: d.str(m, "message", path, "")})
		}
	}
	return out
}

// baseline reads a table of knob = value (the baseline, an enqueued config).
func (d *decoder) baseline(m map[string]any, path string) Config {
	if len(m) == 0 {
		return nil
	}
	c := Config{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch v := m[k].(type) {
		case string, int64, float64, bool:
			c[k] = v
		default:
			d.fail(path+"."+k, "must be a string, number or bool, got %s", typeName(v))
		}
	}
	return c
}

// rangeSize refuses ranges the samplers cannot draw from exactly: bounds
// or step counts beyond 2^52 (a float64's integers) overflow their int64
// arithmetic, and a span beyond the largest float is infinite.
func (d *decoder) rangeSize(p Param, path string) {
	const exact = 1 << 52
	switch {
	case p.Kind == Int && (math.Abs(p.Low) > exact || math.Abs(p.High) > exact):
		d.fail(path, "integer bounds are too large (beyond ±2^52)")
	case !isFinite(p.High - p.Low):
		d.fail(path, "the range %v..%v is too wide", p.Low, p.High)
	case p.Step > 0 && (p.High-p.Low)/p.Step > exact:
		d.fail(join(path, "step"), "step %v is too small for the range %v..%v (more than 2^52 steps)", p.Step, p.Low, p.High)
	}
}
