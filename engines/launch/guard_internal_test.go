package launch

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestSweepTargets(t *testing.T) {
	const guard = 100
	procs := []proc{
		{pid: 1, ppid: 0, pgid: 1, live: true},           // init
		{pid: guard, ppid: 50, pgid: guard, live: true},  // the guardian itself
		{pid: 50, ppid: 1, pgid: 50, live: true},         // servetune
		{pid: 101, ppid: guard, pgid: guard, live: true}, // engine leader
		{pid: 102, ppid: 101, pgid: guard, live: true},   // worker
		{pid: 103, ppid: 101, pgid: 103, live: true},     // worker that called setsid
		{pid: 104, ppid: 103, pgid: 103, live: true},     // its child
		{pid: 105, ppid: guard, pgid: 105, live: true},   // daemon re-parented to the guardian
		{pid: 106, ppid: 101, pgid: guard, live: false},  // zombie worker
		{pid: 107, ppid: 50, pgid: guard, live: true},    // setup step servetune put in the group
		{pid: 200, ppid: 1, pgid: 200, live: true},       // unrelated
		{pid: 201, ppid: 200, pgid: 200, live: true},     // unrelated child
		{pid: 300, ppid: 301, pgid: 300, live: true},     // a ppid cycle (table read mid-change)
		{pid: 301, ppid: 300, pgid: 300, live: true},
	}
	cases := []struct {
		outside bool
		want    []int
	}{
		{false, []int{101, 102, 103, 104, 105, 107}},
		{true, []int{103, 104, 105}},
	}
	for _, c := range cases {
		got := sweepTargets(procs, guard, guard, c.outside)
		slices.Sort(got)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("sweepTargets(outside=%v) = %v; want %v", c.outside, got, c.want)
		}
	}
}

func TestParseGuardArgs(t *testing.T) {
	cases := []struct {
		args    []string
		want    guardOptions
		wantErr bool
	}{
		{[]string{"--grace", "3s", "--program", "/usr/bin/vllm", "--", "vllm", "serve", "--port=1"},
			guardOptions{3 * time.Second, "/usr/bin/vllm", []string{"vllm", "serve", "--port=1"}}, false},
		{[]string{"--", "x", "--grace", "1s"}, guardOptions{defaultGrace, "x", []string{"x", "--grace", "1s"}}, false},
		{guardArgs(27*time.Second, "/p", []string{"a", "-b"}), guardOptions{27 * time.Second, "/p", []string{"a", "-b"}}, false},
		{[]string{"--grace", "3s", "--"}, guardOptions{}, true},
		{[]string{"--grace", "0s", "--", "x"}, guardOptions{}, true},
		{[]string{"--bogus", "--", "x"}, guardOptions{}, true},
	}
	for _, c := range cases {
		got, err := parseGuardArgs(c.args)
		if (err != nil) != c.wantErr || err == nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseGuardArgs(%q) = %+v, %v; want %+v (error %v)", c.args, got, err, c.want, c.wantErr)
		}
	}
}

func TestGuardGraceBeatsServetunes(t *testing.T) {
	for _, g := range []time.Duration{time.Second, defaultGrace} {
		if gg := guardGrace(g); gg <= 0 || gg >= g {
			t.Errorf("guardGrace(%s) = %s; want in (0, %s)", g, gg, g)
		}
	}
}
