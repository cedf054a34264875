package launch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// setupArgv applies the target's launch prefix and program override to
// the command's setup steps: a step naming the engine's program runs the
// target's program instead (e.g. a non-PATH ollama binary).
func setupArgv(c engines.Command, et space.EngineTarget, prefix []string) [][]string {
	var out [][]string
	for _, step := range c.Setup {
		argv := append([]string(nil), prefix...)
		if len(et.Command) > 0 && len(c.Argv) > 0 && len(step) > 0 && step[0] == c.Argv[0] {
			argv = append(append(argv, et.Command[0]), step[1:]...)
		} else {
			argv = append(argv, step...)
		}
		out = append(out, argv)
	}
	return out
}

// setUp runs the setup steps against the live server, then the engine's
// own readiness check, within what is left of the startup timeout.
func (s *Server) setUp(ctx context.Context, client *http.Client, timeout time.Duration) error {
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, argv := range s.setup {
		fmt.Fprintf(s.log, "[servetune: setup: %s]\n", engines.Command{Argv: argv}.Shell())
		c := exec.CommandContext(sctx, argv[0], argv[1:]...)
		c.Dir, c.Env = s.dir, s.env
		c.Stdout, c.Stderr = s.log, s.log
		// In the engine's group, so teardown and the pidfile reaper stop
		// a setup step that hangs.
		c.SysProcAttr = setupProcAttr(s.PGID)
		c.WaitDelay = 5 * time.Second
		err := c.Run()
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		exit := engines.Exit{Exited: true, Code: -1}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			exit.Code = ee.ExitCode()
		}
		if sctx.Err() != nil {
			exit = engines.Exit{TimedOut: true}
		}
		return s.setupFailure(fmt.Sprintf("setup step %q failed: %v", argv, err), exit)
	}
	if err := s.live.Ready(sctx, client, s.BaseURL, s.Model, s.log); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		exit := engines.Exit{}
		if sctx.Err() != nil {
			exit = engines.Exit{TimedOut: true}
		}
		return s.setupFailure(err.Error(), exit)
	}
	return nil
}

// setupFailure classifies a failed setup from engine.log, which holds the
// step's output, falling back to the step's own error.
func (s *Server) setupFailure(why string, exit engines.Exit) error {
	select {
	case <-s.done:
		return s.Failure(engines.Starting) // the server died: its exit says more
	default:
	}
	f := engines.Classify(s.eng, engines.Starting, exit, s.log.Tail(200))
	if f.Class == engines.Unknown {
		f.Message = fmt.Sprintf("%s: %s", s.Engine, why)
	}
	return f
}
