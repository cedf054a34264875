package search

import (
	"slices"
	"testing"

	"github.com/servetune/servetune/space"
)

// neighbourSpace has one knob of each kind the report steps: a list, an
// integer range a rule cuts, a stepped float only one mode has, a
// continuous float, an integer log range and a boolean.
func neighbourSpace(t *testing.T) *space.Space {
	t.Helper()
	when, err := space.ParseExpr(`mode == "b"`)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := space.ParseExpr(`n <= 6`)
	if err != nil {
		t.Fatal(err)
	}
	return &space.Space{
		Target:     space.Target{Engine: "vllm", GPUs: 1},
		Objectives: []space.Objective{maxObj("y")},
		Params: []space.Param{
			{Name: "mode", Kind: space.Categorical, Values: []any{"a", "b", "c"}},
			{Name: "n", Kind: space.Int, Low: 1, High: 8},
			{Name: "x", Kind: space.Float, Low: 0, High: 1, Step: 0.25, When: when},
			{Name: "r", Kind: space.Float, Low: 0.1, High: 0.9},
			{Name: "lg", Kind: space.Int, Low: 1, High: 1024, Log: true},
			{Name: "flag", Kind: space.Categorical, Values: []any{true, false}},
		},
		Rules:    []space.Rule{{Expr: rule}},
		Baseline: space.Config{"mode": "a", "n": int64(1), "x": 0.5},
	}
}

func TestOneKnobNeighbours(t *testing.T) {
	sp := neighbourSpace(t)
	cfg := func(mode string, n int64, extra space.Config) space.Config {
		c := space.Config{"mode": mode, "n": n, "r": 0.5, "lg": int64(16), "flag": true}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	for _, tc := range []struct {
		name string
		c    space.Config
		want []string // knob=value, in order
	}{
		{"the rule removes n=7; mode=b switches x on", cfg("a", 6, nil),
			[]string{"mode=b", "n=5", "r=0.3", "r=0.7", "lg=3", "lg=91", "flag=false"}},
		{"x is stepped on its grid; leaving b drops it", cfg("b", 3, space.Config{"x": 0.25}),
			[]string{"mode=a", "mode=c", "n=2", "n=4", "x=0", "x=0.5", "r=0.3", "r=0.7", "lg=3", "lg=91", "flag=false"}},
		{"domain ends step one way; a continuous step is clamped", cfg("c", 1, space.Config{"r": 0.85, "lg": int64(1024), "flag": false}),
			[]string{"mode=b", "n=2", "r=0.65", "r=0.9", "lg=181", "flag=true"}},
		{"an integer log step moves one at least", cfg("a", 2, space.Config{"lg": int64(2)}),
			[]string{"mode=b", "n=1", "n=3", "r=0.3", "r=0.7", "lg=1", "lg=11", "flag=false"}},
		{"a value off the grid has both grid neighbours; default has none", cfg("b", 4, space.Config{"x": 0.6, "lg": space.Default}),
			[]string{"mode=a", "mode=c", "n=3", "n=5", "x=0.5", "x=0.75", "r=0.3", "r=0.7", "flag=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			had := problemSet(sp.CheckConfig(tc.c))
			for _, n := range OneKnobNeighbours(sp, tc.c) {
				got = append(got, KnobKey(n.Knob, n.Value))
				if problems := sp.CheckConfig(n.Config); !onlyHad(problems, had) {
					t.Errorf("%s: neighbour %s breaks the space: %v", n.Knob, n.Config.Key(), problems)
				}
				if space.FormatValue(n.Config[n.Knob]) != space.FormatValue(n.Value) {
					t.Errorf("%s: config holds %v, not the value %v", n.Knob, n.Config[n.Knob], n.Value)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("neighbours\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// A knob a move switches on takes the baseline's value, and one it
// switches off leaves the config: the neighbour is a whole config the
// space could run.
func TestOneKnobNeighboursFollowWhen(t *testing.T) {
	sp := neighbourSpace(t)
	on := space.Config{"mode": "a", "n": int64(2), "r": 0.5, "lg": int64(16), "flag": true}
	for _, n := range OneKnobNeighbours(sp, on) {
		if n.Knob == "mode" && n.Config["x"] != 0.5 {
			t.Errorf("mode=b switches x on at the baseline's 0.5, got %v", n.Config)
		}
	}
	off := space.Config{"mode": "b", "x": 0.25, "n": int64(2), "r": 0.5, "lg": int64(16), "flag": true}
	for _, n := range OneKnobNeighbours(sp, off) {
		if _, has := n.Config["x"]; n.Knob == "mode" && has {
			t.Errorf("mode=%v switches x off, still has it: %v", n.Value, n.Config)
		}
	}
	sp.Baseline = nil
	for _, n := range OneKnobNeighbours(sp, on) {
		if n.Knob == "mode" && n.Config["x"] != 0.0 {
			t.Errorf("without a baseline x starts at its first value 0, got %v", n.Config)
		}
	}
}

func TestOneKnobNeighboursIsDeterministic(t *testing.T) {
	sp := neighbourSpace(t)
	c := space.Config{"mode": "b", "x": 0.25, "n": int64(3), "r": 0.5, "lg": int64(16), "flag": true}
	first := OneKnobNeighbours(sp, c)
	for range 5 {
		again := OneKnobNeighbours(sp, c)
		if len(again) != len(first) {
			t.Fatalf("%d neighbours, then %d", len(first), len(again))
		}
		for i := range first {
			if first[i].Config.Key() != again[i].Config.Key() {
				t.Fatalf("neighbour %d: %s, then %s", i, first[i].Config.Key(), again[i].Config.Key())
			}
		}
	}
}

// A float log range steps by the factor of GridFloatPoints levels spaced
// in log space (here 10), a linear one by their spacing; both stop at the
// range's ends.
func TestAdjacentValuesOfContinuousRanges(t *testing.T) {
	logRange := space.Param{Name: "lr", Kind: space.Float, Low: 0.01, High: 100, Log: true}
	linear := space.Param{Name: "f", Kind: space.Float, Low: 0, High: 2}
	for _, tc := range []struct {
		p    space.Param
		v    any
		want []any
	}{
		{logRange, 1.0, []any{0.1, 10.0}},
		{logRange, 0.01, []any{0.1}},
		{logRange, 50.0, []any{5.0, 100.0}},
		{linear, 1.0, []any{0.5, 1.5}},
		{linear, 0.2, []any{0.0, 0.7}},
		{linear, 2.0, []any{1.5}},
	} {
		got := adjacentValues(tc.p, tc.v)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s=%v: %v, want %v", tc.p.Name, tc.v, got, tc.want)
		}
	}
}
