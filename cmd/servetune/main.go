package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/studies"
	"github.com/urfave/cli/v2"
)

// env is what every command needs from the outside world; passed in
// explicitly so tests can run commands in-process.
type env struct {
	stdout, stderr io.Writer
	log            zerolog.Logger
	// jsonLog: --log-format json asked for machine-read lines, so no
	// live view either.
	jsonLog bool
	// meter carries benchmark progress from the runner to the view.
	meter *requestMeter
}

// usageError marks bad input: exit code 2, nothing written.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes, documented in docs/reliability.md.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2   // bad input; nothing was written
	exitNoComplete  = 3   // the study ended with no complete trial
	exitLocked      = 4   // another servetune holds the study
	exitInterrupted = 130 // SIGINT or SIGTERM
)

// run executes the CLI and decides the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr, log: zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: true}).With().Timestamp().Logger()}
	app := newApp(e)
	err := app.RunContext(ctx, hoistFlags(args, specOf(app.Flags, app.Commands, false)))
	if err == nil {
		return exitOK
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "servetune: interrupted")
		return exitInterrupted
	}
	fmt.Fprintln(stderr, "servetune:", err)
	return exitCode(err)
}

func newApp(e *env) *cli.App {
	cmds := commands(e)
	usageErrors(cmds)
	return &cli.App{
		Name:      "servetune",
		Usage:     "autotune LLM serving engines (vLLM, SGLang, TensorRT-LLM, Ollama) and the built-in simulator",
		Writer:    e.stdout,
		ErrWriter: e.stderr,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-format", Value: "auto", Usage: "auto | text | json"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug | info | warn | error"},
		},
		Before:          func(c *cli.Context) error { return e.configureLog(c) },
		Commands:        cmds,
		OnUsageError:    func(_ *cli.Context, err error, _ bool) error { return flagError("", err) },
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true,
	}
}

func exitCode(err error) int {
	switch {
	case errors.As(err, new(usageError)):
		return exitUsage
	case errors.As(err, new(errNoComplete)):
		return exitNoComplete
	case errors.Is(err, studies.ErrLocked):
		return exitLocked
	}
	return exitError
}

// commands lists every subcommand; each lives in its own file.
func commands(e *env) []*cli.Command {
	return []*cli.Command{
		runCommand(e),
		workerCommand(e),
		studiesCommand(e),
		showCommand(e),
		bestCommand(e),
		reportCommand(e),
		exportCommand(e),
		benchCommand(e),
		simCommand(e),
		cardCommand(e),
		calibrateCommand(e),
		commandCommand(e),
		labCommand(e),
		testmodelCommand(e),
		guardCommand(),
	}
}

func (e *env) configureLog(c *cli.Context) error {
	lvl, err := zerolog.ParseLevel(c.String("log-level"))
	if err != nil {
		return usagef("--log-level: %v", err)
	}
	switch c.String("log-format") {
	case "json":
		e.log, e.jsonLog = zerolog.New(e.stderr).With().Timestamp().Logger(), true
	case "text", "auto":
	default:
		return usagef("--log-format must be auto, text or json, not %q", c.String("log-format"))
	}
	e.log = e.log.Level(lvl)
	return nil
}
