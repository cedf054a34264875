package space

import (
	"math"
	"strings"
	"time"

	"github.com/servetune/servetune/bench"
)

// Space is one study, as declared in a search-space file.
type Space struct {
	// File is the path the space was read from (for messages).
	File        string
	Study       Study
	Target      Target
	Objectives  []Objective
	Constraints []Constraint
	// Profiles are run in order by every trial; each carries its SLO
	// (its own, else the study's).
	Profiles []bench.Profile
	// SLO is the study's [slo], nil when it has none.
	SLO *bench.SLO
	// Params are the knobs in declared order.
	Params   []Param
	Rules    []Rule
	Baseline Config
	// Enqueue are configs to try first, after the baseline (warm start).
	Enqueue []Config
	// Notes are what the file defines that the study will not use: a
	// custom profile left out of profiles.run, a [target.engines] entry
	// for an engine the space never runs. Kept as alternatives (an
	// example keeps a second profile to swap in), so they load; but the
	// commands that run a study print each, so their author is told.
	Notes []Problem `json:"-"`
}

// Study holds the [study] table.
type Study struct {
	Name string
	// Storage is the SQLite file; default studies/<name>/study.db.
	Storage string
	// Sampler names the search's sampler (search/samplers); when the
	// file names none it is DefaultSampler(Prior) and SamplerDefaulted
	// is set, so a resumed study can keep the one it started with.
	Sampler          string
	SamplerDefaulted bool
	NTrials          int
	Timeout          time.Duration
	Seed             int64
	// OnDrift is what a trial whose environment fingerprint differs from
	// the study's gets: "refuse" (default: the run stops before it) or
	// "warn" (it runs, flagged).
	OnDrift string
	// Repeat measures each config this many times (default 1), so the
	// study measures its own noise; --repeat overrides it.
	Repeat int
	// Prior is PriorSim (the simulator guides the sampler), PriorNone, or
	// "" (the default: the simulator when it has cards for the target's
	// model and GPU).
	Prior string
}

// Study.Prior values.
const (
	PriorSim  = "sim"
	PriorNone = "none"
)

// Direction of an objective.
type Direction string

const (
	Maximize Direction = "maximize"
	Minimize Direction = "minimize"
)

// Objective is a metric to optimise, measured on one profile.
type Objective struct {
	Metric    string
	Direction Direction
	// Profile defaults to the first profile.
	Profile string
}

// Better reports whether a is strictly better than b for this objective.
func (o Objective) Better(a, b float64) bool {
	if o.Direction == Minimize {
		return a < b
	}
	return a > b
}

// Constraint is an SLO on a metric: Metric Op Bound, on one profile. A
// relative constraint (a guard) bounds it by Bound times the baseline
// trial's value of the same metric on the same profile.
type Constraint struct {
	Metric  string
	Op      string // "<=", "<", ">=", ">"
	Bound   float64
	Profile string
	Src     string
	// Relative makes Bound a factor of the baseline's value.
	Relative bool `json:",omitempty"`
}

// Unsatisfiable says whether no trial can meet the constraint: every
// metric servetune reports (latencies, throughputs, counts, shares,
// costs) is zero or more, so an upper bound below zero, or a strict one
// at zero, rules out every trial — a space that can only produce failing
// trials. A relative bound is a positive factor of a value that is zero
// or more, and is judged against the baseline instead.
//
// Shares of requests or answers (slo_attainment, answer_accuracy,
// baseline_agreement, a stage's included) are also at most 1, so a lower
// bound above 1, or a strict one at 1, rules out every trial too.
func (c Constraint) Unsatisfiable() bool {
	if c.Relative {
		return false
	}
	if (c.Op == "<=" && c.Bound < 0) || (c.Op == "<" && c.Bound <= 0) {
		return true
	}
	return IsShare(c.Metric) && ((c.Op == ">=" && c.Bound > 1) || (c.Op == ">" && c.Bound >= 1))
}

// IsShare says whether metric is a share in [0, 1].
func IsShare(metric string) bool {
	if rest, ok := strings.CutPrefix(metric, "stage"); ok {
		if i := strings.IndexByte(rest, '_'); i > 0 && strings.Trim(rest[:i], "0123456789") == "" {
			metric = rest[i+1:]
		}
	}
	switch metric {
	case "slo_attainment", "answer_accuracy", "baseline_agreement":
		return true
	}
	return false
}

// Baseline is the word a relative constraint names the baseline's value by.
const Baseline = "baseline"

// Against is the constraint with its bound made absolute by the
// baseline's value base; an absolute constraint is returned as is.
func (c Constraint) Against(base float64) Constraint {
	if c.Relative {
		c.Bound, c.Relative = c.Bound*base, false
	}
	return c
}

// Violation is how far v is outside the constraint (0 when satisfied),
// relative to the bound so that violations of different metrics add up.
func (c Constraint) Violation(v float64) float64 {
	scale := math.Max(math.Abs(c.Bound), 1e-9)
	switch c.Op {
	case "<=", "<":
		if v > c.Bound || (c.Op == "<" && v == c.Bound) {
			return math.Max(v-c.Bound, 1e-12) / scale
		}
	case ">=", ">":
		if v < c.Bound || (c.Op == ">" && v == c.Bound) {
			return math.Max(c.Bound-v, 1e-12) / scale
		}
	}
	return 0
}

// Rule is a condition every launched config must satisfy.
type Rule struct {
	Expr    *Expr
	Message string
}

// Kind of a knob's domain.
type Kind string

const (
	Float       Kind = "float"
	Int         Kind = "int"
	Categorical Kind = "categorical"
)

// Param is one knob and its domain.
type Param struct {
	Name string
	Kind Kind
	// Low, High (inclusive) and Step bound numeric domains; Step 0 means
	// continuous for floats and 1 for ints.
	Low, High, Step float64
	Log             bool
	// Values are the choices of a categorical knob.
	Values []any
	// When makes the knob exist only where the condition holds.
	When *Expr
}

// Contains reports whether v is a value of the knob's domain.
func (p Param) Contains(v any) bool {
	v = Normalize(v)
	if p.Kind == Categorical {
		for _, c := range p.Values {
			if eq, ok := equal(Normalize(c), v); ok && eq {
				return true
			}
		}
		return false
	}
	f, ok := Number(v, false)
	if !ok || f < p.Low-1e-9 || f > p.High+1e-9 {
		return false
	}
	if p.Kind == Int {
		if _, isInt := v.(int64); !isInt {
			return false
		}
	}
	if p.Step > 0 {
		k := (f - p.Low) / p.Step
		return math.Abs(k-math.Round(k)) < 1e-6
	}
	return true
}

// Grid enumerates a finite domain; ok is false for a continuous float.
func (p Param) Grid() (vals []any, ok bool) {
	switch {
	case p.Kind == Categorical:
		return append([]any(nil), p.Values...), true
	case p.Kind == Int:
		step := math.Max(p.Step, 1)
		if levels(p.Low, p.High, step) > MaxGridLevels {
			return p.thinGrid(step), true
		}
		for x := p.Low; x <= p.High+1e-9; x += step {
			vals = append(vals, int64(math.Round(x)))
		}
		return vals, true
	case p.Step > 0:
		if levels(p.Low, p.High, p.Step) > MaxGridLevels {
			return p.thinGrid(p.Step), true
		}
		n := int(math.Floor((p.High-p.Low)/p.Step + 1e-9))
		for i := 0; i <= n; i++ {
			vals = append(vals, roundTo(p.Low+float64(i)*p.Step, p.Step))
		}
		return vals, true
	}
	return nil, false
}

// MaxGridLevels bounds what Grid enumerates of one range. A wider range
// (max_running 1..1e9) is legal, but listing every value would take
// minutes and gigabytes in the samplers that enumerate (grid, greedy, the
// prior's neighbours); they get MaxGridLevels values spread over it
// (evenly, or geometrically for a log range), and random draws still
// reach every value.
const MaxGridLevels = 4096

// levels is how many values low..high holds at step.
func levels(low, high, step float64) float64 { return math.Floor((high-low)/step+1e-9) + 1 }

// thinGrid is MaxGridLevels values of the range, on its steps, both ends
// included.
func (p Param) thinGrid(step float64) []any {
	n := levels(p.Low, p.High, step) - 1 // steps from low to high
	var vals []any
	seen := map[float64]bool{}
	for i := range MaxGridLevels {
		t := float64(i) / float64(MaxGridLevels-1)
		x := p.Low + t*(p.High-p.Low)
		if p.Log && p.Low > 0 {
			x = p.Low * math.Pow(p.High/p.Low, t)
		}
		k := math.Min(math.Round((x-p.Low)/step), n)
		x = p.Low + k*step
		if seen[x] {
			continue
		}
		seen[x] = true
		if p.Kind == Int {
			vals = append(vals, int64(math.Round(x)))
		} else {
			vals = append(vals, roundTo(x, step))
		}
	}
	return vals
}

// roundTo removes float drift from low + i*step (0.7+3*0.05 = 0.85, not 0.8500000001).
func roundTo(x, step float64) float64 {
	digits := math.Max(0, math.Ceil(-math.Log10(step))+2)
	p := math.Pow(10, digits)
	return math.Round(x*p) / p
}

// Param returns the knob by name.
func (s *Space) Param(name string) (Param, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Vars are the names expressions may read besides knobs.
func (s *Space) Vars() map[string]any {
	return map[string]any{"gpus": int64(s.Target.GPUs), "gpu": s.Target.GPU, "model": s.Target.Model}
}

// Active reports whether param p exists under the (partial) config c.
func (s *Space) Active(p Param, c Config) bool {
	if p.When == nil {
		return true
	}
	ok, applicable := p.When.Eval(s.env(c))
	return applicable && ok
}

// Check returns the first rule c breaks, or nil. A rule whose knobs are
// absent or "default" does not apply.
func (s *Space) Check(c Config) *Rule {
	if i, ok := s.brokenRule(c); ok {
		return &s.Rules[i]
	}
	return nil
}

func (s *Space) brokenRule(c Config) (int, bool) {
	env := s.env(c)
	for i := range s.Rules {
		if ok, applicable := s.Rules[i].Expr.Eval(env); applicable && !ok {
			return i, true
		}
	}
	return 0, false
}

func (s *Space) env(c Config) map[string]any {
	env := s.Vars()
	if s.Target.Engine != "" {
		env["engine"] = s.Target.Engine
	}
	for k, v := range c {
		env[k] = v
	}
	return env
}

// WithTargetEngine adds the target's engine to c when the space has no
// engine knob, so every config names its engine.
func (s *Space) WithTargetEngine(c Config) Config {
	if _, ok := c["engine"]; !ok && s.Target.Engine != "" {
		c = c.Clone()
		c["engine"] = s.Target.Engine
	}
	return c
}

// Engines lists the engines the space can choose.
func (s *Space) Engines() []string {
	if p, ok := s.Param("engine"); ok && p.Kind == Categorical {
		var out []string
		for _, v := range p.Values {
			out = append(out, FormatValue(v))
		}
		return out
	}
	if s.Target.Engine != "" {
		return []string{s.Target.Engine}
	}
	return nil
}

// ObjectiveProfile resolves an objective's or constraint's profile name.
func (s *Space) ObjectiveProfile(name string) string {
	if name != "" || len(s.Profiles) == 0 {
		return name
	}
	return s.Profiles[0].Name
}
