package launch

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// The guardian is the process between servetune and an engine. servetune
// holds the write end of the guardian's stdin and never writes to it, so
// the guardian reads end-of-file exactly when servetune is gone, however it
// died (kill -9 included), and then stops everything the engine started.
// The guardian is transparent otherwise: the engine inherits its stdout,
// stderr, directory and environment, and its exit status becomes the
// guardian's.

// guardArgs are the guardian's arguments for running argv: program is
// argv[0] resolved by the launcher, so "not installed" is still reported
// before anything runs.
func guardArgs(grace time.Duration, program string, argv []string) []string {
	return append([]string{"--grace", grace.String(), "--program", program, "--"}, argv...)
}

type guardOptions struct {
	grace   time.Duration
	program string
	argv    []string
}

func parseGuardArgs(args []string) (guardOptions, error) {
	fs := flag.NewFlagSet("guard", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o guardOptions
	fs.DurationVar(&o.grace, "grace", defaultGrace, "")
	fs.StringVar(&o.program, "program", "", "")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.argv = fs.Args()
	if len(o.argv) == 0 {
		return o, errors.New("no engine command after --")
	}
	if o.grace <= 0 {
		return o, fmt.Errorf("--grace must be positive, not %s", o.grace)
	}
	if o.program == "" {
		o.program = o.argv[0]
	}
	return o, nil
}

// RunGuard is the guardian's main (the hidden `servetune guard` command):
// args are [--grace D] [--program PATH] -- ARGV... It starts ARGV in the
// guardian's process group, and when servetune goes away (stdin reaches
// end-of-file, or SIGHUP from the parent-death signal) it SIGKILLs the
// group and every descendant at once: nobody is left to record a result,
// and an engine's own SIGTERM handling, slow on a loaded machine, would
// keep it alive seconds past its owner. When a stop signal (SIGTERM,
// SIGINT, SIGQUIT) arrives or the engine leader exits, it stops the group
// and every descendant: SIGTERM, then SIGKILL after the grace period. It returns the
// engine's exit code, or ends by the engine's terminating signal.
func RunGuard(args []string, stdin io.Reader, stdout, stderr *os.File) int {
	o, err := parseGuardArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "servetune guard:", err)
		return 2
	}
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintln(stderr, "servetune guard: descendants that daemonise may escape:", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	// Once servetune is gone, stdout and stderr are pipes nobody reads;
	// Go's runtime ends a program that writes to such a pipe on fd 1 or 2
	// by SIGPIPE unless SIGPIPE is notified. A guardian dying so, before
	// its teardown, left an engine's workers running (docs/reliability.md,
	// "a second SIGINT"). A handler, unlike SIG_IGN, is not inherited by
	// the engine.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	c := &exec.Cmd{Args: o.argv, Stdout: stdout, Stderr: stderr, SysProcAttr: engineProcAttr()}
	c.Path, err = guardProgram(o.program, ".")
	if err == nil {
		err = c.Start()
	}
	if err != nil {
		fmt.Fprintf(stderr, "servetune guard: cannot run %s: %v\n", o.argv[0], err)
		return 127 // the shell's "command not found"
	}
	exited := make(chan struct{})
	go func() { _ = c.Wait(); close(exited) }()
	parentGone := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stdin); close(parentGone) }()
	g := &guardian{self: os.Getpid(), leader: c.Process.Pid, exited: exited}
	select {
	case <-exited:
		g.stop(nil, o.grace)
	case <-parentGone:
		g.orphaned()
	case s := <-sigs:
		switch s {
		case syscall.SIGHUP: // the parent-death signal, the pipe's twin
			g.orphaned()
		case syscall.SIGQUIT: // Go's would dump and exit
			g.stop(nil, o.grace)
		default:
			g.stop(s, o.grace)
		}
	}
	<-exited
	return exitWith(c.ProcessState.Sys().(syscall.WaitStatus))
}

// exitWith turns the engine's wait status into the guardian's: the same
// code, or death by the same signal where the runtime allows it.
func exitWith(ws syscall.WaitStatus) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	dieBy(ws.Signal())
	return 128 + int(ws.Signal()) // the shell's convention, if dieBy could not
}

// guardProgram resolves what the guardian will execute, as exec.Command
// would: a bare name through PATH, a path with a slash relative to dir.
// The errors wrap exec.ErrNotFound, fs.ErrNotExist or fs.ErrPermission,
// as starting the program directly would.
func guardProgram(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	p := name
	if !strings.HasPrefix(p, "/") {
		p = dir + "/" + p
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", &os.PathError{Op: "exec", Path: name, Err: os.ErrPermission}
	}
	return name, nil // the guardian runs in dir
}
