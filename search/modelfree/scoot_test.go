package modelfree

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// scootSpace is GLM-5.2 in small: two engines, DP attention (SGLang
// only) and dp, where dp=8 needs DP attention; the memory knobs and a
// kernel mode that is not a pressure knob.
func scootSpace() *space.Space {
	sglang, _ := space.ParseExpr(`engine == "sglang"`)
	rule, _ := space.ParseExpr(`dp == 1 or (engine == "sglang" and enable_dp_attention)`)
	return &space.Space{
		Study:      space.Study{Name: "scoot"},
		Target:     space.Target{GPUs: 8},
		Objectives: []space.Objective{searchtest.MaxObj("total_tps")},
		Params: []space.Param{
			{Name: "engine", Kind: space.Categorical, Values: []any{"vllm", "sglang"}},
			{Name: "dp", Kind: space.Categorical, Values: []any{int64(1), int64(8)}},
			{Name: "enable_dp_attention", Kind: space.Categorical, Values: []any{false, true}, When: sglang},
			{Name: "mem_fraction", Kind: space.Float, Low: 0.7, High: 0.95, Step: 0.05},
			{Name: "max_running", Kind: space.Categorical, Values: []any{int64(64), int64(128), int64(256), int64(512)}},
			{Name: "mode", Kind: space.Categorical, Values: []any{"auto", "normal"}},
		},
		Rules: []space.Rule{{Expr: rule}},
	}
}

// scootLandscape: the dp=8 family is twice any other at its best, and
// runs out of memory from memory fraction 0.85 (others at 0.95; vLLM at
// the low end, where its pool cannot hold the weights).
func scootLandscape(c space.Config) search.Observation {
	mem, _ := c.Float("mem_fraction")
	mr, _ := c.Float("max_running")
	dp, _ := c.Int("dp")
	attn, _ := c.Bool("enable_dp_attention")
	oom := func() search.Observation {
		return search.Observation{Config: c, State: search.Infeasible, Class: search.ClassOOM, Value: math.NaN()}
	}
	base := 1.0
	switch {
	case c.Engine() == "vllm":
		if mem < 0.75 {
			return oom()
		}
	case dp == 8:
		base = 2
		if mem > 0.82 {
			return oom()
		}
	case attn:
		base = 0.9
	default:
		base = 1.1
	}
	if c.Engine() != "vllm" && mem > 0.92 {
		return oom()
	}
	v := 1000 * base * (1 + 2*(mem-0.7)) * math.Log2(mr/32) / 4
	if c.String("mode") == "normal" {
		v *= 0.6
	}
	return search.Observation{Config: c, State: search.Complete, Value: v, Values: []float64{v}}
}

func TestFamiliesAreEngineAndParallelism(t *testing.T) {
	sp := scootSpace()
	f := newFamilies(sp, validGrid(sp))
	if len(f.keys) != 4 {
		t.Fatalf("%d families %q, want 4 (vLLM, SGLang, SGLang+DP attention at dp 1 and 8)", len(f.keys), f.keys)
	}
	a := space.Config{"engine": "sglang", "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.7, "max_running": int64(64), "mode": "auto"}
	b := a.Clone()
	b["mem_fraction"], b["max_running"], b["mode"] = 0.9, int64(512), "normal"
	if f.key(a) != f.key(b) {
		t.Errorf("memory and kernel knobs changed the family: %q vs %q", f.key(a), f.key(b))
	}
	b["dp"] = int64(1)
	if f.key(a) == f.key(b) {
		t.Errorf("dp did not change the family")
	}
	if x := f.encode(a); sum(x) != 1 {
		t.Errorf("family indicators %v, want exactly one set", x)
	}
	if x := f.encode(space.Config{"engine": "ollama"}); sum(x) != 0 {
		t.Errorf("an unknown family set indicators %v", x)
	}
}

// validGrid is the space's grid within its rules.
func validGrid(sp *space.Space) []space.Config {
	var out []space.Config
	for _, c := range search.Grid(sp) {
		if sp.Check(sp.WithTargetEngine(c)) == nil {
			out = append(out, c)
		}
	}
	return out
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// The start-up design measures every family in its first proposals and
// spreads the memory fraction over every value; ten random configs miss
// a family on some seed.
func TestSCOOTDesignCoversEveryFamily(t *testing.T) {
	sp := scootSpace()
	fam := newFamilies(sp, validGrid(sp))
	randomMissed := false
	for seed := int64(1); seed <= 10; seed++ {
		got := scootRun(t, sp, "scoot", seed, search.StartupTrials)
		seen, mems := map[string]bool{}, map[string]bool{}
		for _, c := range got[:len(fam.keys)] {
			seen[fam.key(c)] = true
		}
		for _, c := range newSCOOTModel(t, sp, seed).startDesign() {
			mems[space.FormatValue(c["mem_fraction"])] = true
		}
		if len(seen) != len(fam.keys) {
			t.Errorf("seed %d: the first %d proposals cover %d families, want all", seed, len(fam.keys), len(seen))
		}
		if len(mems) != 6 {
			t.Errorf("seed %d: the design's memory fractions %v, want all 6 values", seed, mems)
		}
		rnd := map[string]bool{}
		for _, c := range scootRun(t, sp, "random", seed, search.StartupTrials) {
			rnd[fam.key(c)] = true
		}
		randomMissed = randomMissed || len(rnd) < len(fam.keys)
	}
	if !randomMissed {
		t.Errorf("ten random configs covered every family on every seed: the test cannot tell the design from them")
	}
}

func newSCOOTModel(t *testing.T, sp *space.Space, seed int64) *scootModel {
	t.Helper()
	s, err := NewSCOOT(search.Build{Space: sp, Seed: seed, Rand: rand.New(rand.NewSource(seed))})
	if err != nil {
		t.Fatal(err)
	}
	return s.(*search.Guard).Model.(*scootModel)
}

// scootRun runs n asks of the named sampler on scootLandscape.
func scootRun(t *testing.T, sp *space.Space, name string, seed int64, n int) []space.Config {
	t.Helper()
	s, err := newSampler(context.Background(), name, sp, seed, nil, zerolog.Nop(), search.Options{NoFeasibility: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []space.Config
	for range n {
		c, err := searchtest.AskOne(s)
		if err != nil {
			t.Fatal(err)
		}
		c = sp.WithTargetEngine(c)
		out = append(out, c)
		if err := s.Tell(context.Background(), scootLandscape(c)); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestFamilyMemory(t *testing.T) {
	sp := scootSpace()
	cfg := func(engine string, dp int64, mem float64, mr int64, mode string) space.Config {
		c := space.Config{"engine": engine, "dp": dp, "mem_fraction": mem, "max_running": mr, "mode": mode}
		if engine == "sglang" {
			c["enable_dp_attention"] = dp == 8
		}
		return c
	}
	oom := search.Observation{State: search.Infeasible, Class: search.ClassOOM}
	ok := search.Observation{State: search.Complete}
	for _, c := range []struct {
		name string
		told []space.Config
		oks  []space.Config
		c    space.Config
		want bool
	}{
		{"no evidence", nil, nil, cfg("sglang", 8, 0.9, 256, "auto"), false},
		{"the same config", []space.Config{cfg("sglang", 8, 0.85, 256, "auto")}, nil, cfg("sglang", 8, 0.85, 256, "auto"), true},
		{"higher on every pressure knob, another kernel mode", []space.Config{cfg("sglang", 8, 0.85, 256, "auto")}, nil, cfg("sglang", 8, 0.9, 512, "normal"), true},
		{"lower memory fraction", []space.Config{cfg("sglang", 8, 0.85, 256, "auto")}, nil, cfg("sglang", 8, 0.8, 256, "auto"), false},
		{"higher fraction, fewer running", []space.Config{cfg("sglang", 8, 0.85, 256, "auto")}, nil, cfg("sglang", 8, 0.9, 128, "auto"), false},
		{"another family", []space.Config{cfg("sglang", 8, 0.85, 256, "auto")}, nil, cfg("sglang", 1, 0.9, 512, "auto"), false},
		{"contradicted: vLLM ran at a higher pressure", []space.Config{cfg("vllm", 1, 0.7, 64, "auto")}, []space.Config{cfg("vllm", 1, 0.9, 256, "auto")}, cfg("vllm", 1, 0.8, 128, "auto"), false},
		{"not contradicted by a lower run", []space.Config{cfg("sglang", 8, 0.85, 256, "auto")}, []space.Config{cfg("sglang", 8, 0.8, 256, "auto")}, cfg("sglang", 8, 0.9, 256, "normal"), true},
		{"default cannot be ranked", []space.Config{{"engine": "sglang", "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.85, "max_running": "default"}}, nil, cfg("sglang", 8, 0.9, 512, "auto"), false},
	} {
		m := &familyMemory{fam: newFamilies(sp, validGrid(sp))}
		for _, o := range c.told {
			m.tell(o, oom)
		}
		for _, o := range c.oks {
			m.tell(o, ok)
		}
		if got := m.predict(c.c); got != c.want {
			t.Errorf("%s: predict = %v, want %v", c.name, got, c.want)
		}
	}
}

// With feasibility learning off, scoot never proposes a config its
// family-wide memory model (rebuilt here from the told trials) rules
// out, while cbo proposes such configs: the check is not vacuous.
func TestSCOOTKeepsOffTheLearnedCliff(t *testing.T) {
	sp := scootSpace()
	ruledOut := func(name string, seed int64) (n int) {
		mem := &familyMemory{fam: newFamilies(sp, validGrid(sp))}
		s, err := newSampler(context.Background(), name, sp, seed, nil, zerolog.Nop(), search.Options{NoFeasibility: true})
		if err != nil {
			t.Fatal(err)
		}
		for range 30 {
			c, err := searchtest.AskOne(s)
			if err != nil {
				t.Fatal(err)
			}
			c = sp.WithTargetEngine(c)
			if mem.predict(c) {
				n++
			}
			o := scootLandscape(c)
			mem.tell(c, o)
			if err := s.Tell(context.Background(), o); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	cbo := 0
	for seed := int64(1); seed <= 5; seed++ {
		if n := ruledOut("scoot", seed); n > 0 {
			t.Errorf("seed %d: scoot proposed %d configs at or above a known OOM of their family", seed, n)
		}
		cbo += ruledOut("cbo", seed)
	}
	if cbo == 0 {
		t.Errorf("cbo never proposed a ruled-out config either: the landscape does not test the model")
	}
}

// Every proposal is within the space's rules, carries exactly the knobs
// active under its values, is new, and a seed fixes the sequence.
func TestSCOOTRespectsTheSpaceAndIsDeterministic(t *testing.T) {
	sp := scootSpace()
	for seed := int64(1); seed <= 3; seed++ {
		a := scootRun(t, sp, "scoot", seed, 30)
		b := scootRun(t, sp, "scoot", seed, 30)
		seen := map[string]bool{}
		for i, c := range a {
			if r := sp.Check(c); r != nil {
				t.Errorf("seed %d trial %d: %s breaks %s", seed, i, c.Summary(), r.Expr)
			}
			for _, p := range sp.Params {
				if _, has := c[p.Name]; has != sp.Active(p, c) {
					t.Errorf("seed %d trial %d: %s has %s = %v, active %v", seed, i, c.Summary(), p.Name, has, sp.Active(p, c))
				}
			}
			if k := search.ConfigKey(sp, c); seen[k] {
				t.Errorf("seed %d trial %d: %s proposed twice", seed, i, c.Summary())
			} else {
				seen[k] = true
			}
			if search.ConfigKey(sp, c) != search.ConfigKey(sp, b[i]) {
				t.Fatalf("seed %d trial %d: %s, then %s on the same seed", seed, i, c.Summary(), b[i].Summary())
			}
		}
	}
}

// On the small GLM-5.2, scoot's median best at 25 trials over 9 seeds
// beats cbo's and random search's: the design measures the dp=8 family,
// the linear part of the surrogate credits it, and the memory model keeps
// the search below its cliff.
func TestSCOOTFindsTheBestFamilyBelowItsCliff(t *testing.T) {
	sp := scootSpace()
	m := medianOfBest(t, sp, scootLandscape, "scoot", "cbo", "random")
	t.Logf("best/optimum at 25, median of 9: scoot %.3f, cbo %.3f, random %.3f", m[0], m[1], m[2])
	if m[0] <= m[1] || m[0] <= m[2] {
		t.Errorf("scoot median %.3f does not beat cbo's %.3f and random's %.3f", m[0], m[1], m[2])
	}
}

func TestSCOOTScoresAreLogsWithPrunedAtTheWorst(t *testing.T) {
	sp := scootSpace()
	order, _ := sp.Order()
	m := &scootModel{cboModel: &cboModel{sp: sp, rng: rand.New(rand.NewSource(1)), order: order}}
	m.obs = []search.Observation{
		{State: search.Complete, Values: []float64{100}},
		{State: search.Pruned},
		{State: search.Infeasible, Class: search.ClassOOM},
		{State: search.Complete, Values: []float64{math.E * 100}},
	}
	got := m.scores()
	want := []float64{math.Log(100), math.Log(100), math.NaN(), math.Log(100) + 1}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("score %d = %v, want %v", i, got[i], want[i])
		}
	}
	sp.Objectives[0].Direction = space.Minimize
	if s := m.scores(); s[3] >= s[0] {
		t.Errorf("minimised: the larger value scores %v, above the smaller's %v", s[3], s[0])
	}
}

func TestSCOOTLocalTurn(t *testing.T) {
	for _, c := range []struct {
		told, every int
		want        bool
	}{
		{0, 2, false}, {1, 2, true}, {2, 2, false}, {3, 2, true},
		{2, 3, true}, {3, 3, false}, {0, 1, true}, {5, 0, false},
	} {
		if got := scootLocalTurn(c.told, c.every); got != c.want {
			t.Errorf("scootLocalTurn(%d, %d) = %v, want %v", c.told, c.every, got, c.want)
		}
	}
}
