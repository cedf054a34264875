package objective

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/space"
)

func TestPickWarm(t *testing.T) {
	warm := []warmState{
		{devices: []string{"0", "1"}, key: "A", live: true},
		{devices: []string{"2", "3"}, key: "A", live: true},
		{devices: []string{"4", "5"}, key: "B", live: false},
		{devices: []string{"6", "7"}, key: "B", live: true},
	}
	for _, c := range []struct {
		name    string
		warm    []warmState
		devices []string
		key     string
		reuse   int
		stop    string
	}{
		{"same devices, same command: reused, neighbours kept", warm, []string{"2", "3"}, "A", 1, "[]"},
		{"same devices, another command: stopped", warm, []string{"0", "1"}, "B", -1, "[0]"},
		{"devices in reverse order are another CUDA_VISIBLE_DEVICES", warm, []string{"1", "0"}, "A", -1, "[0]"},
		{"a dead engine in its place: stopped, not reused", warm, []string{"4", "5"}, "B", -1, "[2]"},
		{"a larger set: every engine on it stops", warm, []string{"0", "1", "2", "3"}, "A", -1, "[0 1]"},
		{"partial overlap stops", warm, []string{"3", "4"}, "A", -1, "[1 2]"},
		{"free devices: nothing to do", warm, []string{"8"}, "A", -1, "[]"},
		{"no devices: every GPU, so every engine stops", warm, nil, "A", -1, "[0 1 2 3]"},
		{"no devices before and now: one trial at a time reuses", []warmState{{key: "A", live: true}}, nil, "A", 0, "[]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reuse, stop := pickWarm(c.warm, c.devices, c.key)
			if reuse != c.reuse || fmt.Sprint(stop) != c.stop && !(c.stop == "[]" && len(stop) == 0) {
				t.Errorf("pickWarm = %d, %v; want %d, %s", reuse, stop, c.reuse, c.stop)
			}
		})
	}
}

// Two trials on their own devices run side by side: each waits at its
// launch for the other to be launching too, which a runner serving one
// trial at a time never lets happen. Each engine sees only its devices.
func TestProcessRunnerRunsTrialsSideBySide(t *testing.T) {
	r := fastRunner(t)
	record := filepath.Join(t.TempDir(), "lives")
	tgt := enginetest.Target("vllm", "org/model", enginetest.Options{RecordFile: record})
	var launching sync.WaitGroup
	launching.Add(2)
	both := make(chan struct{})
	go func() { launching.Wait(); close(both) }()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, devs := range [][]string{{"0", "1"}, {"2", "3"}} {
		onPhase := func(p Phase) {
			if p != Launching {
				return
			}
			launching.Done()
			select {
			case <-both:
			case <-time.After(20 * time.Second): // a deadline, not a wait: the other trial never launched
				errs[i] = fmt.Errorf("trial on %v launched alone", devs)
			}
		}
		wg.Go(func() {
			_, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Devices: devs, OnPhase: onPhase, Target: tgt,
				Config: space.Config{engines.KnobTP: int64(2)}, Profiles: []bench.Profile{tinyProfile("p", 3, 0)}})
			if errs[i] == nil {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	lives, err := enginetest.ReadLives(record)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lives {
		got = append(got, strings.Join(l.Devices, ","))
	}
	slices.Sort(got)
	if fmt.Sprint(got) != "[0,1 2,3]" || lives[0].Port == lives[1].Port {
		t.Errorf("engines ran on %v, ports %d and %d; want one on 0,1 and one on 2,3, on two ports", got, lives[0].Port, lives[1].Port)
	}
}

// With reuse and several device sets, a trial reuses only the engine on
// exactly its devices, leaves its neighbours' warm engines alone, and
// stops every warm engine on a device it needs before it launches.
func TestProcessRunnerReusesPerDeviceSet(t *testing.T) {
	r := fastRunner(t, WithReuse())
	record := filepath.Join(t.TempDir(), "lives")
	tgt := enginetest.Target("sglang", "org/model", enginetest.Options{RecordFile: record})
	cfg := space.Config{engines.KnobTP: int64(2)}
	run := func(devs ...string) string {
		var ph phases
		if _, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Devices: devs, Config: cfg, Target: tgt, Profiles: []bench.Profile{tinyProfile("p", 3, 0)}, OnPhase: ph.add}); err != nil {
			t.Fatal(err)
		}
		return ph.String()
	}
	for _, step := range []struct{ devices, phases string }{
		{"0,1", "launching → benchmarking"},
		{"2,3", "launching → benchmarking"}, // same command, other devices: its own engine
		{"0,1", "benchmarking"},             // the first engine, still warm
		{"1,2", "tearing down → launching → benchmarking"},
	} {
		if got := run(strings.Split(step.devices, ",")...); got != step.phases {
			t.Errorf("trial on %s: %s, want %s", step.devices, got, step.phases)
		}
	}
	lives, err := enginetest.ReadLives(record)
	if err != nil {
		t.Fatal(err)
	}
	if len(lives) != 3 || lives[0].Stop.IsZero() || lives[1].Stop.IsZero() || !lives[2].Stop.IsZero() {
		t.Fatalf("engines %+v: want three, the first two stopped before the third's trial ended", lives)
	}
	if lives[0].Stop.After(lives[2].Start) || lives[1].Stop.After(lives[2].Start) {
		t.Errorf("the engine on 1,2 started before the warm engines on its devices stopped: %+v", lives)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(r.launcher.PidDir, "*.json")); len(left) != 0 {
		t.Errorf("engines still recorded after Close: %v", left)
	}
}
