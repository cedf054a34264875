package space

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestTooDeep(t *testing.T) {
	cases := []struct {
		name string
		src  string
		line int // 0: within the limit of 3
	}{
		{"flat", "a = [1, 2]\n[t]\nb = { c = 1 }", 0},
		{"at the limit", "a = [[[1]]]", 0},
		{"over", "x = 1\na = [[[[1]]]]", 2},
		{"inline tables", "\n\na = { b = { c = { d = { e = 1 } } } }", 3},
		{"brackets in strings do not count", `a = "[[[[" ` + "\nb = '{{{{'", 0},
		{"nor in multi-line strings", "a = \"\"\"\n[[[[\n\"\"\"\nb = '''{{{{\n'''", 0},
		{"nor in comments", "a = 1 # [[[[{{{{", 0},
		{"escaped quote stays in the string", `a = "\"[[[[" `, 0},
		{"lines counted inside multi-line strings", "a = \"\"\"\n\n\"\"\"\nb = [[[[1]]]]", 4},
		{"closing brackets without opening ones", "]]]] a = [[[[1]]]]", 1},
	}
	for _, c := range cases {
		line, over := tooDeep(c.src, 3)
		if over != (c.line > 0) || line != c.line {
			t.Errorf("%s: tooDeep = (%d, %v), want line %d", c.name, line, over, c.line)
		}
	}
}

func TestParseRefusesHugeAndDeepInput(t *testing.T) {
	big := "# " + strings.Repeat("x", MaxFileSize) + "\n"
	deep := "a = " + strings.Repeat("{ b = ", 5000) + "1" + strings.Repeat(" }", 5000)
	for name, src := range map[string]string{"huge": big, "deep": deep} {
		_, err := Parse(context.Background(), "x.toml", src, testOptions())
		var se *Error
		if !errors.As(err, &se) || len(se.Problems) != 1 || se.Problems[0].Line != 1 {
			t.Errorf("%s: Parse = %v, want one problem on line 1", name, err)
		}
	}
}

func TestParseHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := mustRead(t, "../examples/quickstart.toml")
	_, err := Parse(ctx, "quickstart.toml", src, testOptions())
	var se *Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &se) {
		t.Errorf("Parse with a cancelled ctx = %v, want context.Canceled and no *Error", err)
	}
}
