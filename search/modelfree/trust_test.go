package modelfree

import (
	"context"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

func TestLocalTurn(t *testing.T) {
	for _, c := range []struct {
		told, startup, every int
		want                 bool
	}{
		{0, 10, 2, false},
		{9, 10, 2, false},
		{10, 10, 2, false}, // the first model proposal is global
		{11, 10, 2, true},
		{12, 10, 2, false},
		{13, 10, 2, true},
		{12, 10, 3, true},
		{11, 10, 3, false},
		{0, 0, 1, true},
	} {
		if got := trustLocalTurn(c.told, c.startup, c.every); got != c.want {
			t.Errorf("trustLocalTurn(%d, %d, %d) = %v, want %v", c.told, c.startup, c.every, got, c.want)
		}
	}
}

// trustSpace has an ordered float, an ordered categorical with a
// "default", an engine name and a conditional knob.
func trustSpace() *space.Space {
	when, _ := space.ParseExpr(`moe == "deepep"`)
	return &space.Space{
		Study:      space.Study{Name: "trust"},
		Target:     space.Target{GPUs: 1},
		Objectives: []space.Objective{searchtest.MaxObj("total_tps")},
		Params: []space.Param{
			{Name: "engine", Kind: space.Categorical, Values: []any{"vllm", "sglang"}},
			{Name: "mem_fraction", Kind: space.Float, Low: 0.7, High: 0.95, Step: 0.05},
			{Name: "chunked_prefill", Kind: space.Categorical, Values: []any{"default", int64(8192), int64(16384), int64(32768)}},
			{Name: "moe", Kind: space.Categorical, Values: []any{"none", "deepep"}},
			{Name: "mode", Kind: space.Categorical, Values: []any{"auto", "normal"}, When: when},
		},
	}
}

func newTrustModel(t *testing.T, sp *space.Space) *trustModel {
	t.Helper()
	order, err := sp.Order()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	lin := &cboModel{sp: sp, rng: rng, order: order, linear: true}
	return &trustModel{cboModel: lin, feas: search.NewFeasibility(sp)}
}

func keys(sp *space.Space, cs []space.Config) []string {
	var out []string
	for _, c := range cs {
		out = append(out, search.ConfigKey(sp, c))
	}
	sort.Strings(out)
	return out
}

func TestSteps(t *testing.T) {
	sp := trustSpace()
	m := newTrustModel(t, sp)
	p := func(name string) space.Param { q, _ := sp.Param(name); return q }
	for _, c := range []struct {
		knob string
		v    any
		want string
	}{
		{"mem_fraction", 0.8, "0.75 0.85"},
		{"mem_fraction", 0.7, "0.75"},
		{"mem_fraction", 0.95, "0.9"},
		// "default" is a value of its own among numbers: one step to the
		// first number.
		{"chunked_prefill", int64(16384), "8192 32768"},
		{"chunked_prefill", "default", "8192"},
		{"engine", "vllm", "sglang"},
		{"moe", "none", "deepep"},
	} {
		var got []string
		for _, v := range m.steps(p(c.knob), c.v) {
			got = append(got, space.FormatValue(v))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("steps(%s=%v) = %v, want %s", c.knob, c.v, got, c.want)
		}
	}
}

// One knob away: each knob one step (ordered) or to each other value,
// a knob the change turns on set to each of its values, one it turns
// off dropped.
func TestNeighboursRepairConditionalKnobs(t *testing.T) {
	sp := trustSpace()
	m := newTrustModel(t, sp)
	c := space.Config{"engine": "vllm", "mem_fraction": 0.8, "chunked_prefill": int64(8192), "moe": "none"}
	got := keys(sp, m.neighbours([]space.Config{c}))
	want := keys(sp, []space.Config{
		{"engine": "sglang", "mem_fraction": 0.8, "chunked_prefill": int64(8192), "moe": "none"},
		{"engine": "vllm", "mem_fraction": 0.75, "chunked_prefill": int64(8192), "moe": "none"},
		{"engine": "vllm", "mem_fraction": 0.85, "chunked_prefill": int64(8192), "moe": "none"},
		{"engine": "vllm", "mem_fraction": 0.8, "chunked_prefill": "default", "moe": "none"},
		{"engine": "vllm", "mem_fraction": 0.8, "chunked_prefill": int64(16384), "moe": "none"},
		{"engine": "vllm", "mem_fraction": 0.8, "chunked_prefill": int64(8192), "moe": "deepep", "mode": "auto"},
		{"engine": "vllm", "mem_fraction": 0.8, "chunked_prefill": int64(8192), "moe": "deepep", "mode": "normal"},
	})
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("neighbours:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	off := space.Config{"engine": "vllm", "mem_fraction": 0.8, "chunked_prefill": int64(8192), "moe": "deepep", "mode": "auto"}
	for _, n := range m.neighbours([]space.Config{off}) {
		if n.String("moe") == "none" && n.Has("mode") {
			t.Errorf("neighbour %v keeps a knob its change turned off", n.Key())
		}
	}
}

// cliffFamilyLandscape: three knobs multiply the throughput (the family
// of the best), which grows steeply with the memory fraction up to an
// out-of-memory cliff that larger chunks and more running requests move
// down: the best config sits just below the cliff, at a fraction a
// model of main effects does not pin down.
func cliffFamilyLandscape() (*space.Space, func(space.Config) search.Observation) {
	two := []any{"a", "b"}
	sp := &space.Space{
		Study:      space.Study{Name: "cliff-family"},
		Target:     space.Target{GPUs: 1},
		Objectives: []space.Objective{searchtest.MaxObj("total_tps")},
		Params: []space.Param{
			{Name: "k1", Kind: space.Categorical, Values: two}, {Name: "k2", Kind: space.Categorical, Values: two},
			{Name: "k3", Kind: space.Categorical, Values: two},
			{Name: "chunked_prefill", Kind: space.Categorical, Values: []any{int64(8192), int64(16384), int64(32768)}},
			{Name: "max_running", Kind: space.Categorical, Values: []any{int64(64), int64(128), int64(256), int64(512)}},
			{Name: "mem_fraction", Kind: space.Float, Low: 0.7, High: 0.95, Step: 0.05},
		},
	}
	return sp, func(c space.Config) search.Observation {
		mr, _ := c.Float("max_running")
		mem, _ := c.Float("mem_fraction")
		ch, _ := c.Float("chunked_prefill")
		steps := math.Log2(ch / 8192)
		if mem > 0.9-0.05*steps-0.05*math.Max(0, math.Log2(mr/128)) {
			return search.Observation{Config: c, State: search.Infeasible, Class: search.ClassOOM, Value: math.NaN()}
		}
		v := 1000 * math.Log2(mr) * math.Pow(mem-0.6, 2) * (1 + 0.1*steps)
		for k, f := range map[string]float64{"k1": 1.8, "k2": 1.6, "k3": 1.5} {
			if c.String(k) == "b" {
				v *= f
			}
		}
		return search.Observation{Config: c, State: search.Complete, Value: v, Values: []float64{v}}
	}
}

// With the study's feasibility learning off, trust still never proposes
// a config the monotone memory model rules out (an OOM at no more
// pressure, the other knobs the same), where linear does.
func TestTrustKeepsOffKnownOOMWithoutFeasibility(t *testing.T) {
	sp, f := cliffFamilyLandscape()
	ruledOut := func(name string, seed int64) (n int) {
		s, err := newSampler(context.Background(), name, sp, seed, nil, zerolog.Nop(), search.Options{NoFeasibility: true})
		if err != nil {
			t.Fatal(err)
		}
		feas := search.NewFeasibility(sp)
		for range 30 {
			c, err := searchtest.AskOne(s)
			if err != nil {
				t.Fatal(err)
			}
			if bad, _ := feas.Predict(c); bad {
				n++
			}
			o := f(sp.WithTargetEngine(c))
			feas.Tell(o)
			if err := s.Tell(context.Background(), o); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	tr, lin := 0, 0
	for seed := int64(1); seed <= 5; seed++ {
		tr += ruledOut("trust", seed)
		lin += ruledOut("linear", seed)
	}
	if tr != 0 || lin == 0 {
		t.Errorf("proposals the memory model rules out, 5 seeds × 30 trials: trust %d (want 0), linear %d (want some)", tr, lin)
	}
}
