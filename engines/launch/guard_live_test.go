package launch

import (
	"errors"
	"os/exec"
	"reflect"
	"slices"
	"testing"
)

// One pass of Live.Kill over a process table: the leader (guardian) goes
// last, after every member and descendant, so orphans keep their ancestry
// while it lives; a PID reused by a stranger is never touched.
func TestKillRound(t *testing.T) {
	const guard, reused = 100, 400
	table := []proc{
		{pid: 1, ppid: 0, pgid: 1, live: true},
		{pid: guard, ppid: 50, pgid: guard, live: true},  // the guardian
		{pid: 101, ppid: guard, pgid: guard, live: true}, // engine leader
		{pid: 102, ppid: 101, pgid: guard, live: true},   // worker
		{pid: 103, ppid: 101, pgid: 103, live: true},     // worker that called setsid
		{pid: 105, ppid: guard, pgid: 105, live: true},   // daemon re-parented to the guardian
		{pid: 106, ppid: 101, pgid: guard, live: false},  // zombie worker
		{pid: 200, ppid: 1, pgid: 200, live: true},       // unrelated
		{pid: reused, ppid: 1, pgid: reused, live: true}, // a stranger on a dead group's PID
		{pid: 401, ppid: reused, pgid: reused, live: true},
		{pid: 501, ppid: 1, pgid: 500, live: true}, // an engine group whose leader is gone
	}
	starts := map[int]uint64{guard: 7, reused: 99}
	startOf := func(pid int) (uint64, bool) { st, ok := starts[pid]; return st, ok }
	cases := []struct {
		name   string
		procs  []proc
		groups map[int]uint64
		killed []int
		left   []int
	}{
		{"members and descendants first", table, map[int]uint64{guard: 7}, []int{101, 102, 103, 105}, []int{guard}},
		{"the leader once alone", []proc{table[1], table[6]}, map[int]uint64{guard: 7}, []int{guard}, []int{guard}},
		{"a group that is gone", []proc{table[0]}, map[int]uint64{guard: 7}, nil, nil},
		{"a reused PID", table, map[int]uint64{reused: 3}, nil, nil},
		{"unknown start time", []proc{table[1]}, map[int]uint64{guard: 0}, []int{guard}, []int{guard}},
		{"a leaderless group", table, map[int]uint64{500: 5}, []int{501}, []int{500}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var killed []int
			left := killRound(c.procs, c.groups, startOf, func(pid int) { killed = append(killed, pid) })
			slices.Sort(killed)
			if !reflect.DeepEqual(killed, c.killed) || !reflect.DeepEqual(left, c.left) {
				t.Errorf("killed %v, left %v; want %v and %v", killed, left, c.killed, c.left)
			}
		})
	}
}

// Once Kill has begun, no engine is started: a launch racing the second
// signal would otherwise outlive servetune.
func TestLiveRefusesLaunchesOnceKilled(t *testing.T) {
	var v Live
	if left := v.Kill(0); len(left) != 0 {
		t.Fatalf("an empty set left %v", left)
	}
	c := exec.Command("true")
	if err := v.start(c); !errors.Is(err, errStopping) {
		t.Fatalf("start after Kill: %v, want errStopping", err)
	}
	if c.Process != nil {
		t.Fatal("the process was started")
	}
}
