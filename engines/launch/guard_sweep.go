package launch

import (
	"os"
	"syscall"
	"time"
)

// proc is one process as /proc shows it.
type proc struct {
	pid, ppid, pgid int
	live            bool // not a zombie
}

// sweepTargets lists the live processes a guardian must stop: members of
// its process group and its descendants (ancestry through ppid reaches
// the guardian), never the guardian itself. Descendants matter because a
// worker that called setsid has left the group; as a child subreaper the
// guardian inherits orphans, so their ancestry stays known while it lives.
// outside keeps only those that left the group: a signal sent to the group
// already reached the others.
func sweepTargets(procs []proc, self, pgid int, outside bool) []int {
	parent := make(map[int]int, len(procs))
	for _, p := range procs {
		parent[p.pid] = p.ppid
	}
	var out []int
	for _, p := range procs {
		if !p.live || p.pid == self {
			continue
		}
		inGroup := p.pgid == pgid
		if outside && inGroup {
			continue
		}
		if inGroup || descends(parent, p.pid, self) {
			out = append(out, p.pid)
		}
	}
	return out
}

// descends walks pid's ancestry; the step bound guards a table read while
// processes came and went.
func descends(parent map[int]int, pid, ancestor int) bool {
	for range len(parent) {
		pp, ok := parent[pid]
		if !ok || pp <= 1 {
			return false
		}
		if pp == ancestor {
			return true
		}
		pid = pp
	}
	return false
}

// guardian is the state RunGuard's teardown needs.
type guardian struct {
	self, leader int
	exited       <-chan struct{} // closed once the leader is reaped
	// sent is the signal each target last got: a process that appears
	// during the teardown (a worker forked while the engine was still
	// starting, a shutdown hook's helper) gets the current one at the
	// next poll instead of living until the grace period ends.
	sent map[int]syscall.Signal
	cur  syscall.Signal
}

const (
	guardPoll     = 50 * time.Millisecond
	guardKillWait = 5 * time.Second
)

// stop ends the engine: first (nil means SIGTERM to everyone) goes to
// the targets, then SIGKILL after grace. A forwarded stop signal goes only
// to processes outside the group, which the sender's group signal missed.
func (g *guardian) stop(first os.Signal, grace time.Duration) {
	if first == nil {
		g.signal(syscall.SIGTERM, false)
	} else {
		g.signal(first.(syscall.Signal), true)
	}
	if g.wait(grace) {
		return
	}
	g.signal(syscall.SIGKILL, false)
	g.wait(guardKillWait)
}

// orphaned ends the engine once servetune is gone (killed, -9
// included): SIGKILL to the group and every descendant at once, no grace.
// The kernel ends a SIGKILLed process without its help, so how soon the
// group is gone hangs on the guardian waking on the event (its stdin's
// end-of-file), not on the engine being scheduled to shut down.
func (g *guardian) orphaned() {
	g.signal(syscall.SIGKILL, false)
	g.wait(guardKillWait)
}

func (g *guardian) signal(sig syscall.Signal, outside bool) {
	g.cur = sig
	procs := readProcs()
	left := map[int]bool{}
	for _, pid := range sweepTargets(procs, g.self, g.self, true) {
		left[pid] = true
	}
	for _, pid := range sweepTargets(procs, g.self, g.self, false) {
		if outside && !left[pid] {
			g.mark(pid, sig) // the sender's group signal reached it
			continue
		}
		g.send(pid, sig)
	}
	if !outside {
		// Without /proc (not Linux) there are no targets: still reach the leader.
		_ = syscall.Kill(g.leader, sig)
	}
}

func (g *guardian) send(pid int, sig syscall.Signal) {
	g.mark(pid, sig)
	_ = syscall.Kill(pid, sig)
}

func (g *guardian) mark(pid int, sig syscall.Signal) {
	if g.sent == nil {
		g.sent = map[int]syscall.Signal{}
	}
	g.sent[pid] = sig
}

// latecomers gives the current signal to the targets that have not had
// it: they appeared after the sweep that sent it.
func (g *guardian) latecomers(procs []proc) {
	if g.cur == 0 {
		return
	}
	for _, pid := range sweepTargets(procs, g.self, g.self, false) {
		if g.sent[pid] != g.cur {
			g.send(pid, g.cur)
		}
	}
}

// wait polls until the leader is reaped and no target is left, or limit
// passes; polling because no event says "the last descendant exited".
func (g *guardian) wait(limit time.Duration) bool {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(guardPoll)
	defer tick.Stop()
	for {
		procs := readProcs()
		g.reapOrphans(procs)
		g.latecomers(procs)
		select {
		case <-g.exited:
			// A snapshot read before the leader was reaped can miss what
			// it forked as it exited: judge "nothing left" on one read
			// after the reap.
			procs = readProcs()
			g.latecomers(procs)
			if len(sweepTargets(procs, g.self, g.self, false)) == 0 {
				return true
			}
		default:
		}
		select {
		case <-deadline.C:
			return false
		case <-tick.C:
		}
	}
}

// reapOrphans collects the exit status of dead orphans re-parented to the
// guardian (it is their subreaper), never the leader's: that belongs to
// the goroutine waiting for it.
func (g *guardian) reapOrphans(procs []proc) {
	for _, p := range procs {
		if !p.live && p.ppid == g.self && p.pid != g.leader {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}
