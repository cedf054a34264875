package launch

import (
	"os"
	"os/exec"
	"time"
)

// spawn starts the engine process, or the guardian running it when the
// launcher has one, records its group in a pidfile and starts waiting.
func (s *Server) spawn() error {
	c, err := s.command()
	if err != nil {
		return err
	}
	if err := s.l.Live.start(c); err != nil {
		s.closeLifeline(c)
		return err
	}
	if s.lifeline != nil {
		c.Stdin.(*os.File).Close() // the guardian holds the read end now
	}
	s.cmd, s.PGID = c, c.Process.Pid
	start, _ := processStart(s.PGID)
	s.pidfile, err = writePidfile(s.l.PidDir, pidRecord{PID: s.PGID, PGID: s.PGID, Start: start, Argv: c.Args, Started: time.Now()})
	if err != nil {
		s.l.Log.Warn().Err(err).Msg("engine pidfile not written; a killed servetune may leave this engine running")
	}
	go s.wait()
	return nil
}

// command builds the process to start: the engine in its own process
// group, or the guardian (which puts the engine in its group) with a
// stdin pipe whose write end servetune keeps until the guardian exits.
func (s *Server) command() (*exec.Cmd, error) {
	argv := s.Argv
	var stdin *os.File
	attr := sysProcAttr()
	if len(s.l.Guard) > 0 {
		program, err := guardProgram(argv[0], s.dir)
		if err != nil {
			return nil, err
		}
		if stdin, s.lifeline, err = os.Pipe(); err != nil {
			return nil, err
		}
		argv = append(append([]string(nil), s.l.Guard...), guardArgs(guardGrace(orDefault(s.l.Grace, defaultGrace)), program, argv)...)
		attr = guardProcAttr()
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir, c.Env, c.SysProcAttr = s.dir, s.env, attr
	c.Stdout, c.Stderr = s.log, s.log
	if stdin != nil {
		c.Stdin = stdin
	}
	// Workers that inherit stdout can outlive the leader; do not let them
	// hold Wait (and so teardown) forever.
	c.WaitDelay = 5 * time.Second
	return c, nil
}

func (s *Server) closeLifeline(c *exec.Cmd) {
	if s.lifeline == nil {
		return
	}
	c.Stdin.(*os.File).Close()
	s.lifeline.Close()
	s.lifeline = nil
}

// guardGrace is the guardian's SIGTERM → SIGKILL delay: a tenth shorter
// than servetune's, so when a stop signal came from servetune the guardian
// kills the descendants that left the group before servetune's SIGKILL to
// the group kills the guardian.
func guardGrace(grace time.Duration) time.Duration { return grace - grace/10 }
