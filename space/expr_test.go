package space

import (
	"errors"
	"math"
	"testing"
)

func TestExprEval(t *testing.T) {
	vars := map[string]any{"tp": int64(8), "dp": int64(4), "engine": "sglang", "dpa": true, "mem": 0.85, "cp": Default, "gpus": int64(8)}
	cases := []struct {
		src        string
		want, appl bool
	}{
		{"tp % dp == 0", true, true},
		{"tp * dp <= gpus", false, true},
		{`engine == "sglang" and dpa`, true, true},
		{`engine != 'sglang' || tp / dp == 2`, true, true},
		{"not dpa", false, true},
		{"!(mem > 0.9)", true, true},
		{`engine in ["vllm", "sglang"]`, true, true},
		{"tp in [1, 2]", false, true},
		{"-tp < 0 && 2 + 3 * 4 == 14", true, true},
		{"cp >= 8192", false, false},              // "default" is not applicable
		{"missing == 1", false, false},            // absent knob
		{"missing == 1 or tp == 8", true, true},   // three-valued or
		{"missing == 1 and tp == 1", false, true}, // three-valued and
		{"tp % 0 == 0", false, false},
		{`engine > 3`, false, false},
	}
	for _, c := range cases {
		e, err := ParseExpr(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, appl := e.Eval(vars)
		if got != c.want || appl != c.appl {
			t.Errorf("%s = (%v, applicable %v), want (%v, %v)", c.src, got, appl, c.want, c.appl)
		}
	}
}

func TestExprSyntaxErrors(t *testing.T) {
	for _, src := range []string{"tp %", "tp == ", "(tp == 1", `engine == "x`, "tp in 1", "tp @ 2", "and tp", ""} {
		if _, err := ParseExpr(src); err == nil {
			t.Errorf("ParseExpr(%q) succeeded", src)
		}
	}
}

func TestExprIdents(t *testing.T) {
	e, err := ParseExpr(`engine == "sglang" and tp % dp == 0 or tp > gpus`)
	if err != nil {
		t.Fatal(err)
	}
	got := e.Idents()
	want := []string{"engine", "tp", "dp", "gpus"}
	if len(got) != len(want) {
		t.Fatalf("idents %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("idents %v, want %v", got, want)
		}
	}
}

func TestExprTrySeparatesUnknownFromUnevaluable(t *testing.T) {
	vars := map[string]any{"tp": int64(8), "dp": int64(0), "engine": "vllm", "cp": Default}
	cases := []struct {
		src     string
		na, bad bool // not applicable; cannot be evaluated
	}{
		{"tp == 8", false, false},
		{"cp > 1", true, false},
		{"missing + 1 > 2", true, false},
		{"tp % dp == 0", false, true},
		{"tp / 0 == 1", false, true},
		{"engine + 1 > tp", false, true},
		{"tp + 1", false, true},                       // a number, not a condition
		{"dp == 0 or tp % dp == 0", false, false},     // guarded
		{"dp != 0 and tp % dp == 0", false, false},    // guarded
		{"missing == 1 and tp / 0 == 1", true, false}, // unknown hides the error
	}
	for _, c := range cases {
		e, err := ParseExpr(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		_, err = e.try(vars)
		na := errors.Is(err, errNA)
		if na != c.na || (err != nil && !na) != c.bad {
			t.Errorf("%s: try error %v, want not-applicable %v, unevaluable %v", c.src, err, c.na, c.bad)
		}
	}
}

func TestConfigNumbers(t *testing.T) {
	c := Config{"i": int64(1 << 60), "f": 8.0, "h": 8.5, "s": "16", "sf": "0.85", "nan": math.NaN(), "b": true, "d": Default}
	for _, x := range []struct {
		k    string
		want int64
		ok   bool
	}{{"i", 1 << 60, true}, {"f", 8, true}, {"h", 0, false}, {"s", 16, true}, {"sf", 0, false}, {"nan", 0, false}, {"b", 0, false}, {"d", 0, false}, {"absent", 0, false}} {
		if got, ok := c.Int(x.k); ok != x.ok || (ok && got != x.want) {
			t.Errorf("Int(%s) = %d, %v; want %d, %v", x.k, got, ok, x.want, x.ok)
		}
	}
	for _, x := range []struct {
		k    string
		want float64
		ok   bool
	}{{"f", 8, true}, {"sf", 0.85, true}, {"s", 16, true}, {"nan", 0, false}, {"b", 0, false}, {"d", 0, false}} {
		if got, ok := c.Float(x.k); ok != x.ok || (ok && got != x.want) {
			t.Errorf("Float(%s) = %v, %v; want %v, %v", x.k, got, ok, x.want, x.ok)
		}
	}
}
