package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/internal/suggest"
)

// argSpec is what reordering needs to know of a command: which of its
// flags take a value, its subcommands, and whether it parses its own
// arguments (then nothing is moved).
type argSpec struct {
	values map[string]bool
	subs   map[string]argSpec
	raw    bool
}

// specOf describes a command tree for hoistFlags.
func specOf(flags []cli.Flag, cmds []*cli.Command, raw bool) argSpec {
	s := argSpec{values: map[string]bool{}, subs: map[string]argSpec{}, raw: raw}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			s.values[n] = !isBool
		}
	}
	for _, c := range cmds {
		sub := specOf(c.Flags, c.Subcommands, c.SkipFlagParsing)
		for _, n := range c.Names() {
			s.subs[n] = sub
		}
	}
	return s
}

// hoistFlags moves flags written after a command's positional arguments
// before them (`show quickstart --json` → `show --json quickstart`), since
// urfave/cli stops parsing flags at the first positional argument. A flag
// keeps its value (`--sort total_tps`, `--sort=total_tps`); a global flag
// written after the command (`run x.toml --log-format json`) goes before
// the command; everything after `--` stays where it is; a command that
// parses its own arguments is left alone. args[0] is the program.
func hoistFlags(args []string, s argSpec) []string {
	if len(args) == 0 {
		return args
	}
	global, rest := hoist(args[1:], s, s.values)
	return append(append([]string{args[0]}, global...), rest...)
}

// hoist reorders one command's arguments; flags the command does not
// define but the program does come back separately as global.
func hoist(args []string, s argSpec, globals map[string]bool) (global, rest []string) {
	if s.raw {
		return nil, args
	}
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return global, append(append(flags, pos...), args[i:]...)
		case isFlag(a):
			name := flagName(a)
			_, own := s.values[name]
			takes, isGlobal := globals[name]
			dst := &flags
			if !own && isGlobal {
				dst = &global
			} else {
				takes = s.values[name]
			}
			*dst = append(*dst, a)
			if takes && !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				*dst = append(*dst, args[i])
			}
		case len(pos) == 0 && hasSub(s, a):
			g, r := hoist(args[i+1:], s.subs[a], globals)
			return append(global, g...), append(append(flags, a), r...)
		default:
			pos = append(pos, a)
		}
	}
	return global, append(flags, pos...)
}

func hasSub(s argSpec, name string) bool {
	_, ok := s.subs[name]
	return ok
}

// isFlag: "-x", "--x", "--x=v"; a lone "-" (stdin) and negative numbers
// are arguments.
func isFlag(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	return a[1] < '0' || a[1] > '9'
}

func flagName(a string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name
}

// usageErrors makes every command's flag errors bad input (exit 2, one
// line naming the flag) instead of urfave/cli's help page on stdout.
func usageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		name, flags := c.Name, c.Flags
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return flagError(name, flags, err) }
		required := takeRequired(c.Flags)
		before := c.Before
		c.Before = func(ctx *cli.Context) error {
			if err := requiredFlags(ctx, required); err != nil {
				return err
			}
			if err := checkFlagValues(ctx); err != nil {
				return err
			}
			if before != nil {
				return before(ctx)
			}
			return nil
		}
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = unknownSubcommand
		}
		usageErrors(c.Subcommands)
	}
}

// flagError names an unknown flag as the user wrote it (the flag package
// reports "-bogus" for "--bogus") with the nearest flag the command has.
func flagError(cmd string, flags []cli.Flag, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		name = strings.TrimPrefix(name, "-")
		var known []string
		for _, f := range flags {
			known = append(known, f.Names()...)
		}
		msg = "unknown flag --" + name
		if c, ok := suggest.Closest(name, known); ok {
			msg += fmt.Sprintf("; did you mean --%s?", c)
		}
	}
	// A value the flag cannot parse: the flag package names it "-seed"
	// ('invalid value "abc" for flag -seed: parse error'); name it as
	// written, --seed.
	if m := invalidValueRE.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("--%s %s: not a value this flag takes (%s)", m[2], m[1], m[3])
	}
	if cmd == "" {
		return usagef("%s", msg)
	}
	return usagef("%s: %s", cmd, msg)
}

var invalidValueRE = regexp.MustCompile(`^invalid value (".*") for flag -+([A-Za-z0-9-]+): (.*)$`)

// unknownSubcommand is the action of a command that only groups others.
func unknownSubcommand(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowSubcommandHelp(c)
	}
	name := c.Args().First()
	var names []string
	for _, sub := range c.Command.VisibleCommands() {
		names = append(names, sub.Names()...)
	}
	return usagef("%s: unknown command %q%s", c.Command.Name, name, suggest.Hint(name, names))
}
