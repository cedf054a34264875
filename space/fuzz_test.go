package space

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzExpr: any text either fails to parse or evaluates without a panic,
// and Eval agrees with try.
func FuzzExpr(f *testing.F) {
	for _, s := range []string{
		`not (engine == "sglang" and enable_dp_attention) or tp % dp == 0`,
		`(engine == "sglang" and enable_dp_attention) or tp * dp <= gpus`,
		`engine in ["vllm", 'sglang'] && !(mem > 0.9) || -tp < 0`,
		"tp / 0 == 1", "engine + 1 > tp", "1_000 + 2.5e3 % 7 >= .5", "tp %", "((((tp))))", `"unterminated`,
	} {
		f.Add(s)
	}
	vars := []map[string]any{
		{},
		{"tp": int64(8), "dp": int64(0), "engine": "sglang", "enable_dp_attention": true, "mem": 0.85, "gpus": int64(8)},
		{"tp": int64(-1 << 63), "dp": int64(-1), "engine": Default, "mem": 1e308, "gpus": 1.5},
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src)
		if err != nil {
			return
		}
		if e.String() != src {
			t.Fatalf("String() = %q, want the source %q", e.String(), src)
		}
		_ = e.Idents()
		for _, v := range vars {
			b, ok := e.Eval(v)
			tb, terr := e.try(v)
			if ok != (terr == nil) || (ok && b != tb) {
				t.Fatalf("%q: Eval = (%v, %v), try = (%v, %v)", src, b, ok, tb, terr)
			}
		}
	})
}

// FuzzParse: any bytes give a *Space or a *Error, never a panic or
// another error, and fast thanks to the size and nesting limits.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata/good", "testdata/bad", "../examples"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(b))
		}
	}
	f.Add("a = " + strings.Repeat("[", 40) + strings.Repeat("]", 40))
	// Ranges whose sampling overflowed int64 and panicked.
	for _, r := range []string{"low = 0\nhigh = 9223372036854775807", "low = 0.0\nhigh = 1e300\nstep = 1e-300", "low = -1e308\nhigh = 1e308"} {
		f.Add(minimalHead + minimalTail + "[params.knob]\n" + r + "\n")
	}
	opt := testOptions()
	opt.Samples = 50
	f.Fuzz(func(t *testing.T, src string) {
		sp, err := Parse(context.Background(), "fuzz.toml", src, opt)
		var se *Error
		switch {
		case err == nil && sp == nil:
			t.Fatal("no space and no error")
		case err != nil && !errors.As(err, &se):
			t.Fatalf("error %v is not a *space.Error", err)
		case se != nil && len(se.Problems) == 0:
			t.Fatal("a *space.Error without problems")
		}
	})
}
