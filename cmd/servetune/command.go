package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

func commandCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "command",
		Usage:     "print the exact serving command (argv, env, generated files) of one config",
		ArgsUsage: "SPACE.toml",
		Description: `Starts from the space's baseline, applies each --set knob=value, checks
the space's rules and prints the engine command a trial would run (without
the target's launch prefix, program override and environment, which are
the machine's, not the config's). Reports and 'servetune best' use the same
renderer. A value no engine can take (NaN, tp=0, mem_fraction=1.5) is
refused; a value merely outside the space's domain is rendered with a
warning on stderr.

  servetune command space.toml --set engine=sglang --set tp=8 --set dp=8 \
      --set enable_dp_attention=true --set mem_fraction=0.85`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "set", Usage: "knob=value (repeatable)"},
			&cli.BoolFlag{Name: "pretty", Usage: "one flag per line, backslash-continued"},
			&cli.BoolFlag{Name: "json", Usage: "print the command as JSON (argv, env, files)"},
			enginesFlag(),
		},
		Action: func(c *cli.Context) error {
			o := commandOptions{sets: c.StringSlice("set"), pretty: c.Bool("pretty"), json: c.Bool("json"), engines: c.StringSlice("engines")}
			if err := o.trailing(c.Args().Slice()); err != nil {
				return err
			}
			sp, err := loadSpace(c.Context, o.file, o.engines...)
			if err != nil {
				return err
			}
			cfg, err := sp.WithSets(o.sets)
			if err != nil {
				return usageError{err}
			}
			warnOutside(e.stderr, sp, cfg)
			d, err := engines.Deploy(cfg, sp.Target)
			if err != nil {
				return usageError{err}
			}
			if d.PD != nil {
				return printPD(e.stdout, d.Processes, o.pretty, o.json)
			}
			return printCommand(e.stdout, d.Command, o.pretty, o.json)
		},
	}
}

type commandOptions struct {
	file         string
	sets         []string
	engines      []string
	pretty, json bool
}

// trailing reads flags written after the space file (`command SPACE.toml
// --set k=v`), which urfave/cli leaves as arguments.
func (o *commandOptions) trailing(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--set" || a == "-set":
			if i+1 >= len(args) {
				return usagef("--set needs knob=value")
			}
			i++
			o.sets = append(o.sets, args[i])
		case strings.HasPrefix(a, "--set="):
			o.sets = append(o.sets, strings.TrimPrefix(a, "--set="))
		case a == "--engines" && i+1 < len(args):
			i++
			o.engines = append(o.engines, args[i])
		case strings.HasPrefix(a, "--engines="):
			o.engines = append(o.engines, strings.TrimPrefix(a, "--engines="))
		case a == "--pretty":
			o.pretty = true
		case a == "--json":
			o.json = true
		case strings.HasPrefix(a, "-"):
			return usagef("command: unknown flag %s", a)
		case o.file != "":
			return usagef("command takes one search-space file, got %s and %s", o.file, a)
		default:
			o.file = a
		}
	}
	if o.file == "" {
		return usagef("command needs a search-space file")
	}
	return nil
}

// warnOutside says which values lie outside the space's declared domains.
// They are rendered anyway: a value no engine can take was refused
// already, and a command for a point just beyond the searched space is
// something a user plausibly wants.
func warnOutside(w io.Writer, sp *space.Space, cfg space.Config) {
	for _, p := range sp.Outside(cfg) {
		fmt.Fprintf(w, "servetune: warning: %s: %s of %s; rendering it anyway\n", p.Key, p.Msg, sp.File)
	}
}

func printCommand(w io.Writer, cmd engines.Command, pretty, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(cmd)
	}
	if pretty {
		fmt.Fprintln(w, cmd.Pretty())
	} else {
		fmt.Fprintln(w, cmd.Shell())
	}
	for _, name := range sortedNames(cmd.Files) {
		fmt.Fprintf(w, "\n# %s\n%s", name, cmd.Files[name])
	}
	return nil
}

// printPD prints every process of a disaggregated deployment: servers,
// then the router.
func printPD(w io.Writer, procs []engines.PDProcess, pretty, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(procs)
	}
	_, err := fmt.Fprintln(w, engines.PDText(procs, pretty))
	return err
}

func sortedNames(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}
