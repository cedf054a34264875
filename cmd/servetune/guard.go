package main

import (
	"os"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines"
)

// guardCommand is the hidden `servetune guard [--grace D] [--program P] --
// ARGV...`: the launcher runs every engine under it so the engine and its
// workers die with servetune (engines.RunGuard). Never for people.
func guardCommand() *cli.Command {
	return &cli.Command{
		Name:            "guard",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			// The exit status is the engine's, which the error → code
			// mapping of run could not express.
			os.Exit(engines.RunGuard(c.Args().Slice(), os.Stdin, os.Stdout, os.Stderr))
			return nil
		},
	}
}

// guardEngines makes the launcher start engines under this binary's guard
// command. /proc/self/exe still names this binary if the file was
// replaced during a long study (a rebuild), where its path would not.
func guardEngines(l *engines.Launcher) {
	exe := "/proc/self/exe"
	if runtime.GOOS != "linux" {
		var err error
		if exe, err = os.Executable(); err != nil {
			l.Log.Warn().Err(err).Msg("no engine guardian: engines may outlive a killed servetune until the next run reaps them")
			return
		}
	}
	l.Guard = []string{exe, "guard"}
}
