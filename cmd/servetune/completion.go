package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/studies/studydir"
)

// completeFlag is what the completion scripts append to the words typed
// so far; urfave/cli then runs the command's BashComplete instead of it.
const completeFlag = "--generate-bash-completion"

// reorder is hoistFlags that keeps a trailing completeFlag last, where
// urfave/cli looks for it.
func reorder(args []string, s argSpec) []string {
	if n := len(args); n > 1 && args[n-1] == completeFlag {
		return append(hoistFlags(args[:n-1], s), completeFlag)
	}
	return hoistFlags(args, s)
}

// completeWith makes every command complete from the words the shell
// passed (urfave/cli's default reads os.Args): the flags that begin with
// a word being typed as a flag, else the command's subcommands.
func completeWith(app *cli.App, args []string) {
	typed := ""
	if n := len(args); n > 2 && args[n-1] == completeFlag {
		typed = args[n-2]
	}
	app.BashComplete = func(c *cli.Context) { complete(c.App.Writer, typed, app.Flags, app.Commands) }
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, cmd := range cmds {
			cmd.BashComplete = func(c *cli.Context) {
				if takesStudy(cmd) && c.NArg() == 0 && !strings.HasPrefix(typed, "-") {
					completeStudies(c.App.Writer, c.String("dir"))
					return
				}
				complete(c.App.Writer, typed, cmd.Flags, cmd.Subcommands)
			}
			walk(cmd.Subcommands)
		}
	}
	walk(app.Commands)
}

// takesStudy: the command's first argument is a study's name (show,
// best, report, export, calibrate).
func takesStudy(cmd *cli.Command) bool { return strings.HasPrefix(cmd.ArgsUsage, "STUDY") }

// completeStudies prints the names of the studies under dir (--dir), one
// a line; the shell keeps those that begin with the word typed. Shared
// storage (--storage) is not queried: a completion must not wait on a
// server.
func completeStudies(w io.Writer, dir string) {
	for _, d := range studydir.List(dir) {
		fmt.Fprintln(w, d.Name())
	}
}

// complete prints one candidate a line.
func complete(w io.Writer, typed string, flags []cli.Flag, cmds []*cli.Command) {
	if strings.HasPrefix(typed, "-") {
		for _, f := range flags {
			for _, n := range f.Names() {
				if len(n) > 1 && strings.HasPrefix("--"+n, typed) {
					fmt.Fprintln(w, "--"+n)
				}
			}
		}
		return
	}
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			fmt.Fprintln(w, c.Name)
		}
	}
}

// completionCommand prints a completion script for a shell.
func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `bash:  source <(servetune completion bash)     (or save it in /etc/bash_completion.d/servetune)
zsh:   servetune completion zsh > "${fpath[1]}/_servetune"
fish:  servetune completion fish > ~/.config/fish/completions/servetune.fish`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion takes one shell: bash, zsh or fish")
			}
			var script string
			switch c.Args().First() {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = zshCompletion
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return fmt.Errorf("fish completion: %w", err)
				}
				script = s
			default:
				return usagef("completion: no script for shell %q (bash, zsh or fish)", c.Args().First())
			}
			_, err := io.WriteString(c.App.Writer, script)
			return err
		},
	}
}

// bashCompletion and zshCompletion are urfave/cli's autocomplete scripts
// (autocomplete/bash_autocomplete, zsh_autocomplete) bound to servetune.
const bashCompletion = `# bash completion for servetune
_servetune_complete() {
  local cur words cword
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  local opts
  if [[ "$cur" == "-"* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _servetune_complete servetune
`

const zshCompletion = `#compdef servetune

_servetune() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}

compdef _servetune servetune
`
