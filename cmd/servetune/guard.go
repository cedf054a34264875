package main

import (
	"os"
	"runtime"

	"github.com/servetune/servetune/engines/launch"
)

// guardEngines makes the launcher start engines under this binary's
// hidden `servetune guard [--grace D] [--program P] -- ARGV...` (main
// runs launch.RunGuard for it, never for people), so the engine and its
// workers die with servetune, and records them in e.live for a second
// signal. /proc/self/exe still names this binary if the file was replaced
// during a long study (a rebuild), where its path would not.
func (e *env) guardEngines(l *launch.Launcher) {
	l.Live = e.live
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
