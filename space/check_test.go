package space

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestCheckValue(t *testing.T) {
	cases := []struct {
		knob string
		v    any
		bad  string // part of the error; "" for legal
	}{
		{"tp", int64(8), ""},
		{"tp", int64(0), "tp must be an integer >= 1"},
		{"dp", int64(-8), "got -8"},
		{"ep", 2.5, "integer >= 1"},
		{"pp", 4.0, ""}, // a whole float is still a count
		{"tp", Default, ""},
		{"tp", "eight", `got "eight"`},
		{"mem_fraction", 0.85, ""},
		{"mem_fraction", int64(1), ""},
		{"mem_fraction", 0.0, "(0, 1]"},
		{"mem_fraction", 1.01, "(0, 1]"},
		{"chunked_prefill", int64(-1), ""},
		{"chunked_prefill", int64(0), "or -1"},
		{"chunked_prefill", int64(-2), "or -1"},
		{"max_running", int64(1), ""},
		{"kv_cache_dtype", "fp8", ""}, // not a knob with a known domain
		{"some_knob", math.NaN(), "NaN is not a finite number"},
		{"some_knob", math.Inf(-1), "-Inf is not a finite number"},
		{"mem_fraction", math.NaN(), "NaN is not a finite number"},
	}
	for _, c := range cases {
		err := CheckValue(c.knob, c.v)
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("CheckValue(%s, %v) = %v, want nil", c.knob, c.v, err)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("CheckValue(%s, %v) = %v, want an error naming %q", c.knob, c.v, err, c.bad)
		}
	}
}

func quickstart(t *testing.T) *Space {
	t.Helper()
	sp, err := Load(context.Background(), "../examples/quickstart.toml", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestCheckConfig(t *testing.T) {
	sp := quickstart(t)
	cases := []struct {
		name string
		cfg  Config
		want []string // "key: message part", in order
	}{
		{"the baseline", Config{"engine": "vllm", "tp": int64(8)}, nil},
		{"empty: every knob takes the engine default", Config{}, nil},
		{"default is never outside", Config{"mem_fraction": Default}, nil},
		{"off the step", Config{"mem_fraction": 0.87}, []string{"mem_fraction: 0.87 is outside the knob's domain 0.7..0.95 step 0.05"}},
		{"not a listed value", Config{"tp": int64(4)}, []string{"tp: 4 is not one of the knob's values [8]"}},
		{"illegal, reported once", Config{"tp": int64(-8)}, []string{"tp: tp must be an integer >= 1"}},
		{"NaN", Config{"mem_fraction": math.NaN()}, []string{"mem_fraction: NaN is not a finite number"}},
		{"undeclared knob: legality only", Config{"num_thread": int64(0), "attention_backend": "fa3"}, []string{"num_thread: num_thread must be"}},
		{"a broken rule", Config{"engine": "vllm", "tp": int64(8), "dp": int64(8)}, []string{": breaks rules[1]: dp replicas"}},
	}
	for _, c := range cases {
		var got []string
		for _, p := range sp.CheckConfig(c.cfg) {
			got = append(got, p.Key+": "+p.Msg)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: problems %q, want %d like %q", c.name, got, len(c.want), c.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], c.want[i]) {
				t.Errorf("%s: problem %q, want it to contain %q", c.name, got[i], c.want[i])
			}
		}
	}
}

func TestOutsideNamesTheTargetEngine(t *testing.T) {
	sp, err := Load(context.Background(), "testdata/good/minimal.toml", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if ps := sp.Outside(Config{"engine": "vllm", "max_running": int64(300)}); len(ps) != 1 || ps[0].Key != "max_running" {
		t.Errorf("Outside = %v, want max_running only", ps)
	}
	if ps := sp.Outside(Config{"engine": "sglang"}); len(ps) != 1 || !strings.Contains(ps[0].Msg, `not the target's engine "vllm"`) {
		t.Errorf("Outside = %v, want the engine", ps)
	}
}

func TestParamDomain(t *testing.T) {
	for _, c := range []struct {
		p    Param
		want string
	}{
		{Param{Kind: Categorical, Values: []any{"default", int64(8), true}}, `["default", 8, true]`},
		{Param{Kind: Int, Low: 8, High: 256, Log: true}, "8..256 (log)"},
		{Param{Kind: Float, Low: 0.7, High: 0.95, Step: 0.05}, "0.7..0.95 step 0.05"},
	} {
		if got := c.p.Domain(); got != c.want {
			t.Errorf("Domain() = %s, want %s", got, c.want)
		}
	}
}
