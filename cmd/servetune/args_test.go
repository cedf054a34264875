package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestHoistFlags(t *testing.T) {
	spec := specOf([]cli.Flag{&cli.StringFlag{Name: "log-format"}},
		[]*cli.Command{
			{Name: "show", Flags: []cli.Flag{&cli.StringFlag{Name: "sort"}, &cli.BoolFlag{Name: "json"}, &cli.StringFlag{Name: "dir"}}},
			{Name: "sim", Subcommands: []*cli.Command{{Name: "serve", Flags: []cli.Flag{&cli.StringFlag{Name: "engine"}, &cli.IntFlag{Name: "gpus"}}}}},
			{Name: "guard", SkipFlagParsing: true},
		}, false)
	for _, tc := range []struct{ in, want string }{
		{"show quickstart --json", "show --json quickstart"},
		{"show --json quickstart", "show --json quickstart"},
		{"show quickstart --sort total_tps --json", "show --sort total_tps --json quickstart"},
		{"show quickstart --sort=total_tps", "show --sort=total_tps quickstart"},
		{"show quickstart -sort total_tps", "show -sort total_tps quickstart"},
		{"--log-format json show quickstart --dir d", "--log-format json show --dir d quickstart"},
		// A bool flag takes no value: the word after it stays an argument.
		{"show --json quickstart --dir d", "show --json --dir d quickstart"},
		{"show --json a b", "show --json a b"},
		// Negative numbers and "-" are arguments, not flags.
		{"show quickstart -1 -", "show quickstart -1 -"},
		// After "--" nothing moves.
		{"sim serve -- --tp-size 8 x", "sim serve -- --tp-size 8 x"},
		{"sim serve --engine sglang -- --tp-size 8", "sim serve --engine sglang -- --tp-size 8"},
		{"sim serve x --gpus 8 -- --tp-size 8", "sim serve --gpus 8 x -- --tp-size 8"},
		{"guard a --x b", "guard a --x b"},
		// A value flag at the end without its value is left for the parser to refuse.
		{"show q --sort", "show --sort q"},
		{"", ""},
		// A global flag after the command goes before it.
		{"show quickstart --log-format json --json", "--log-format json show --json quickstart"},
		{"sim serve x --log-format=json", "--log-format=json sim serve x"},
	} {
		in := append([]string{"servetune"}, strings.Fields(tc.in)...)
		got := strings.Join(hoistFlags(in, spec)[1:], " ")
		if got != tc.want {
			t.Errorf("%q → %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHoistFlagsKnowsEveryCommandsValueFlags(t *testing.T) {
	app := newApp(&env{})
	spec := specOf(app.Flags, app.Commands, false)
	got := hoistFlags([]string{"servetune", "best", "q", "--export", "k8s", "--trial", "3", "--json"}, spec)
	want := []string{"servetune", "best", "--export", "k8s", "--trial", "3", "--json", "q"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// FuzzHoistFlags: reordering only moves words, keeps the program first
// and everything after "--" in place, and is idempotent.
func FuzzHoistFlags(f *testing.F) {
	for _, s := range []string{
		"show quickstart --json", "best q --export k8s --trial 3", "run x.toml --log-format json --fresh",
		"sim serve x --gpus 8 -- --tp-size 8", "guard --x a", "show -1 - --sort=a b", "--log-level debug run a --n-trials 4",
		"show q --sort", "command s.toml --set tp=8 --pretty", "-- show", "sim --engine x serve",
	} {
		f.Add(s)
	}
	app := newApp(&env{})
	spec := specOf(app.Flags, app.Commands, false)
	f.Fuzz(func(t *testing.T, line string) {
		in := append([]string{"servetune"}, strings.Fields(line)...)
		out := hoistFlags(in, spec)
		if out[0] != "servetune" || len(out) != len(in) {
			t.Fatalf("%q → %q", in, out)
		}
		a, b := slices.Clone(in), slices.Clone(out)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("%q → %q is not a reordering", in, out)
		}
		if i := slices.Index(in, "--"); i >= 0 {
			tail := in[i:]
			if !slices.Equal(out[len(out)-len(tail):], tail) {
				t.Fatalf("%q → %q moved words after --", in, out)
			}
		}
		if again := hoistFlags(out, spec); !slices.Equal(again, out) {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}
	})
}

func TestUnknownFlagsAreBadInput(t *testing.T) {
	for _, args := range [][]string{{"show", "q", "--bogus"}, {"--bogus", "studies"}, {"sim", "serve", "--nope"}, {"best", "q", "--trial", "x"}} {
		code, out, errText := runCLI(t, t.TempDir(), args...)
		if code != 2 || out != "" || !strings.Contains(errText, "servetune: ") || strings.Count(errText, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, out, errText)
		}
	}
}
