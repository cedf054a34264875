package launch

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Live is the set of engine process groups servetune started and has not
// yet seen gone, across all its launchers: what a second SIGINT or
// SIGTERM kills at once (Kill). The guardians alone cannot be relied on
// then: servetune ends right after, and an engine's teardown must not
// depend on any process outliving it. The zero value is ready; a nil
// *Live tracks nothing.
type Live struct {
	mu     sync.Mutex
	groups map[int]uint64 // pgid → its leader's start time (0: unknown)
	closed bool
}

// errStopping refuses an engine launch once Kill has begun; it is a
// cancellation (servetune was interrupted), never the config's failure.
var errStopping = fmt.Errorf("servetune is stopping, no engine is started: %w", context.Canceled)

// start starts c (which leads a process group of its own) and records
// its group, under the lock Kill takes, so no engine can be started
// between Kill's snapshot and servetune's exit without being in it.
func (v *Live) start(c *exec.Cmd) error {
	if v == nil {
		return c.Start()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return errStopping
	}
	if err := c.Start(); err != nil {
		return err
	}
	if v.groups == nil {
		v.groups = map[int]uint64{}
	}
	start, _ := processStart(c.Process.Pid)
	v.groups[c.Process.Pid] = start
	return nil
}

// gone forgets a group its teardown saw empty.
func (v *Live) gone(pgid int) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.groups, pgid)
}

const livePoll = 10 * time.Millisecond

// Kill refuses any later launch, then SIGKILLs every live group's members
// and its leader's descendants (a worker that called setsid included),
// the leader last, and waits until none is left or limit passes. It
// returns the groups that still had a live process at the end.
func (v *Live) Kill(limit time.Duration) []int {
	if v == nil {
		return nil
	}
	v.mu.Lock()
	v.closed = true
	groups := make(map[int]uint64, len(v.groups))
	for pg, st := range v.groups {
		groups[pg] = st
	}
	v.mu.Unlock()
	deadline := time.Now().Add(limit)
	for {
		procs := readProcs()
		if procs == nil { // no /proc: the group signal is all there is
			for pg := range groups {
				_ = syscall.Kill(-pg, syscall.SIGKILL)
			}
		}
		left := killRound(procs, groups, processStart, func(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) })
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(livePoll) // no event says "the group is empty"
	}
}

// killRound is one pass of Kill over a snapshot of the process table. In
// each group it kills every member and descendant of the leader but the
// leader, and the leader (the guardian, a child subreaper) only once
// nothing else is left: while it lives, orphans re-parent to it, so their
// ancestry still says whose they are. A leader alive with another start
// time means the group is gone and its PID reused: nothing of it is
// touched. It returns the groups in which a process was still alive.
func killRound(procs []proc, groups map[int]uint64, startOf func(int) (uint64, bool), kill func(int)) []int {
	var left []int
	for pgid, start := range groups {
		leader := slices.IndexFunc(procs, func(p proc) bool { return p.pid == pgid && p.live }) >= 0
		if leader && start != 0 {
			if now, ok := startOf(pgid); ok && now != start {
				delete(groups, pgid)
				continue
			}
		}
		targets := sweepTargets(procs, pgid, pgid, false)
		for _, pid := range targets {
			kill(pid)
		}
		if len(targets) == 0 && leader {
			kill(pgid)
		}
		if len(targets) > 0 || leader {
			left = append(left, pgid)
		}
	}
	slices.Sort(left)
	return left
}
