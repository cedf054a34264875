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
