package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/internal/suggest"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/progress/view"
	"github.com/servetune/servetune/studies/report"
	"github.com/servetune/servetune/studies/store/pgurl"
	"github.com/servetune/servetune/studies/studydir"
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
	meter *view.Meter
	// live is every engine group started, for a second signal to kill.
	live *launch.Live
}

// usageError marks bad input: exit code 2, nothing written.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "guard" {
		// The guardian (launch.RunGuard) is not servetune: it must not
		// take servetune's signals nor print on them, since its stderr is
		// a pipe to a servetune that may be gone.
		os.Exit(launch.RunGuard(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	if p, ok := gcPercent(os.Getenv); ok {
		debug.SetGCPercent(p)
	}
	live := &launch.Live{}
	ctx, stop := interruptible(os.Stderr, live, os.Exit)
	code := runLive(ctx, os.Args, os.Stdout, os.Stderr, live)
	stop()
	os.Exit(code)
}

// interruptible is cancelled by the first SIGINT or SIGTERM, which
// servetune answers by recording the trial and tearing its engines down
// (SIGTERM, SIGKILL after the grace period). A second one cannot wait for
// that: it SIGKILLs every engine process group in live and what their
// guardians started, waits (at most liveKillWait) until none is left, and
// exits 130; the next run records the trial in flight as interrupted.
// Its stop function returns once that goroutine is done.
func interruptible(stderr io.Writer, live *launch.Live, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "servetune: %v: stopping: recording the trial and tearing its engines down (a second signal kills them at once)\n", s)
			cancel()
		case <-quit:
			return
		}
		select {
		case s := <-sigs:
			killEngines(stderr, s, live)
			exit(exitInterrupted)
		case <-quit:
		}
	}()
	// stop waits for a second signal's kill under way (at most
	// liveKillWait): a run whose teardown ended meanwhile would otherwise
	// exit before the kill said what it did.
	return ctx, func() { signal.Stop(sigs); close(quit); <-done; cancel() }
}

// liveKillWait bounds the wait for SIGKILLed engines to be gone, so a
// second signal ends servetune within about a second.
const liveKillWait = time.Second

func killEngines(stderr io.Writer, s os.Signal, live *launch.Live) {
	if left := live.Kill(liveKillWait); len(left) > 0 {
		fmt.Fprintf(stderr, "servetune: %v again: engine process groups %v still had processes %v after SIGKILL\n", s, left, liveKillWait)
		return
	}
	fmt.Fprintf(stderr, "servetune: %v again: engines killed; the next run records the trial in flight as interrupted\n", s)
}

// Exit codes, listed by --help (exitCodes) and docs/reliability.md.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2   // bad input; nothing was written
	exitNoComplete  = 3   // the study ended with no complete trial
	exitLocked      = 4   // another servetune holds the study
	exitCheck       = 5   // a --dry-run check failed
	exitInterrupted = 130 // SIGINT or SIGTERM
)

// exitCodes says what each exit code means, for --help; a test holds
// docs/reliability.md to the same list.
func exitCodes() []exitCodeDoc {
	return []exitCodeDoc{
		{exitOK, "done"},
		{exitError, "an error (engine program missing, storage failure, ...)"},
		{exitUsage, "bad input: a space file, command, flag or argument; nothing was written"},
		{exitNoComplete, "the study ended with no complete trial"},
		{exitLocked, "the study is in use by another servetune"},
		{exitCheck, "run/worker --dry-run: a check failed; nothing was launched or written"},
		{exitInterrupted, "interrupted by SIGINT or SIGTERM"},
	}
}

type exitCodeDoc struct {
	code    int
	meaning string
}

// run executes the CLI and decides the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runLive(ctx, args, stdout, stderr, &launch.Live{})
}

// runLive is run recording the engines it starts in live.
func runLive(ctx context.Context, args []string, stdout, stderr io.Writer, live *launch.Live) int {
	secrets := pgurl.OutputSecrets(args, os.Getenv, storageEnv)
	stdout, stderr = pgurl.Masked(stdout, secrets), pgurl.Masked(stderr, secrets)
	e := &env{stdout: stdout, stderr: stderr, live: live, log: zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: true}).With().Timestamp().Logger()}
	app := newApp(e)
	completeWith(app, args)
	err := app.RunContext(ctx, reorder(args, specOf(app.Flags, app.Commands, false)))
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
	flags := []cli.Flag{
		&cli.StringFlag{Name: "log-format", Value: "auto", Usage: "`FORMAT` of log lines: auto | text | json"},
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "lowest `LEVEL` logged: debug | info | warn | error"},
	}
	return &cli.App{
		Name:    "servetune",
		Usage:   "autotune LLM serving engines (vLLM, SGLang, TensorRT-LLM, Ollama) and the built-in simulator",
		Version: version(),
		// The exit codes close the program's help (not a command's).
		CustomAppHelpTemplate: cli.AppHelpTemplate + exitCodesHelp(),
		Writer:                e.stdout,
		ErrWriter:             e.stderr,
		Flags:                 flags,
		Before:                func(c *cli.Context) error { return e.configureLog(c) },
		Action:                unknownCommand,
		Commands:              cmds,
		OnUsageError:          func(_ *cli.Context, err error, _ bool) error { return flagError("", flags, err) },
		ExitErrHandler:        func(*cli.Context, error) {},
		HideHelpCommand:       true,
		EnableBashCompletion:  true,
	}
}

// unknownCommand is the program's action: with no command it prints the
// help; anything else is a command that does not exist.
func unknownCommand(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowAppHelp(c)
	}
	name := c.Args().First()
	var names []string
	for _, cmd := range c.App.VisibleCommands() {
		names = append(names, cmd.Names()...)
	}
	if hint := suggest.Hint(name, names); hint != "" {
		return usagef("unknown command %q%s", name, hint)
	}
	// `servetune version` and `servetune help` mean the program's flags.
	for _, f := range []string{"version", "help"} {
		if name == f {
			return usagef("unknown command %q; did you mean \"--%s\"?", name, f)
		}
	}
	return usagef("unknown command %q (servetune --help lists them)", name)
}

func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("\nEXIT CODES:\n")
	for _, c := range exitCodes() {
		fmt.Fprintf(&b, "   %3d  %s\n", c.code, c.meaning)
	}
	return b.String()
}

// version is the program's --version: the module version and its commit
// (versionOf) and the Go version it was built with.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return report.VersionOf(bi) + " " + bi.GoVersion
}

func exitCode(err error) int {
	switch {
	case errors.As(err, new(usageError)), errors.As(err, new(studies.InputError)):
		return exitUsage
	case errors.As(err, new(studies.NoCompleteError)):
		return exitNoComplete
	case errors.Is(err, studydir.ErrLocked):
		return exitLocked
	case errors.As(err, new(errCheckFailed)):
		return exitCheck
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
		completionCommand(),
	}
}

func (e *env) configureLog(c *cli.Context) error {
	lvl, err := zerolog.ParseLevel(c.String("log-level"))
	if err != nil {
		return usagef("--log-level: %v", err)
	}
	if c.String("log-level") == "" {
		// zerolog reads "" as no level: every line logged, as debug.
		return usagef("--log-level is empty (an unset shell variable?): give debug, info, warn or error")
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
