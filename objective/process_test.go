package objective

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/space"
)

func TestMain(m *testing.M) {
	enginetest.Main()
	os.Exit(m.Run())
}

func fastRunner(t *testing.T, opts ...ProcessOption) *ProcessRunner {
	opts = append([]ProcessOption{WithLauncher(func(l *launch.Launcher) {
		l.Grace = 2 * time.Second
		l.PollInterval = 20 * time.Millisecond
		l.ProbeTimeout = time.Second
		l.GPUApps = func(context.Context) (launch.GPUUsage, bool, error) { return launch.GPUUsage{}, false, nil }
	})}, opts...)
	return NewProcessRunner(zerolog.New(zerolog.NewTestWriter(t)), t.TempDir(), opts...)
}

func tinyProfile(name string, n, warmup int) bench.Profile {
	return bench.Profile{Name: name, Dataset: bench.DatasetRandom, InputLen: 16, OutputLen: 4, NumPrompts: n,
		RequestRate: math.Inf(1), MaxConcurrency: 4, Warmup: warmup, Seed: 1}
}

type phases struct {
	mu  sync.Mutex
	got []Phase
}

func (p *phases) add(ph Phase) { p.mu.Lock(); p.got = append(p.got, ph); p.mu.Unlock() }

func (p *phases) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var s []string
	for _, x := range p.got {
		s = append(s, string(x))
	}
	return strings.Join(s, " → ")
}

// TestProcessRunnerTrial runs a whole trial against a fake engine:
// launch → ready → bench (two profiles) → teardown.
func TestProcessRunnerTrial(t *testing.T) {
	r := fastRunner(t)
	var ph phases
	tgt := enginetest.Target("sglang", "org/model", enginetest.Options{Worker: true, StartupDelay: 30 * time.Millisecond})
	cfg := space.Config{engines.KnobTP: int64(2), engines.KnobMemFraction: 0.8}
	res, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Number: 1, Config: cfg, Target: tgt, OnPhase: ph.add,
		Profiles: []bench.Profile{tinyProfile("a", 8, 0), tinyProfile("b", 5, 2)}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := ph.String(); got != "launching → benchmarking → warming up → benchmarking → tearing down" {
		t.Errorf("phases = %s", got)
	}
	if res.Metrics["a"]["completed"] != 8 || res.Metrics["b"]["completed"] != 5 || res.Metrics["a"]["total_tps"] <= 0 {
		t.Errorf("metrics = %v", res.Metrics)
	}
	if res.Duration <= 0 || math.Abs(res.GPUSeconds-2*res.Duration.Seconds()) > 1e-9 {
		t.Errorf("GPUSeconds = %v for %v on tp=2", res.GPUSeconds, res.Duration)
	}
	if _, err := os.Stat(res.LogPath); err != nil || filepath.Base(res.LogPath) != "engine.log" {
		t.Errorf("log %q: %v", res.LogPath, err)
	}
}

func TestProcessRunnerClassifiesFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		o    enginetest.Options
		want engines.Class
	}{
		{"oom", enginetest.Options{OOMAbove: 0.5}, engines.OOM},
		{"invalid", enginetest.Options{Mode: enginetest.Invalid}, engines.InvalidConfig},
		{"crash during benchmark", enginetest.Options{DieAfter: 3, ITL: 5 * time.Millisecond}, engines.CrashedDuringBenchmark},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := fastRunner(t)
			tgt := enginetest.Target("vllm", "org/model", c.o)
			res, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Number: 3, Config: space.Config{engines.KnobMemFraction: 0.9}, Target: tgt,
				Profiles: []bench.Profile{tinyProfile("p", 20, 0)}})
			f, ok := engines.AsFailure(err)
			if !ok || f.Class != c.want {
				t.Fatalf("Run = %v; want %s", err, c.want)
			}
			if res.GPUSeconds <= 0 {
				t.Error("a failed trial was charged no GPU time")
			}
		})
	}
}

func TestProcessRunnerRejectsUnsupportedKnobBeforeLaunch(t *testing.T) {
	r := fastRunner(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	tgt := enginetest.Target("trtllm", "org/model", enginetest.Options{PIDFile: pidFile})
	_, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Config: space.Config{engines.KnobDP: int64(2)}, Target: tgt})
	if f, ok := engines.AsFailure(err); !ok || f.Class != engines.InvalidConfig {
		t.Fatalf("Run = %v; want invalid_config", err)
	}
	if pids := readPIDs(t, pidFile); len(pids) != 0 {
		t.Fatalf("an engine was launched for an invalid config: %v", pids)
	}
}

// TestInterruptLeavesNoProcess cancels a trial during startup, warm-up and
// benchmark and checks that the engine and its worker are gone: the
// process group is empty and each recorded PID is dead.
func TestInterruptLeavesNoProcess(t *testing.T) {
	for _, at := range []Phase{Launching, WarmingUp, Benchmarking} {
		t.Run(string(at), func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			o := enginetest.Options{Worker: true, PIDFile: pidFile, IgnoreTerm: true, ITL: 50 * time.Millisecond}
			if at == Launching {
				o.Mode = enginetest.Hang
			}
			r := fastRunner(t, WithLauncher(func(l *launch.Launcher) { l.Grace = 300 * time.Millisecond }))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			onPhase := func(p Phase) {
				if p == at {
					go func() { waitForPIDs(t, pidFile, 2); cancel() }()
				}
			}
			p := tinyProfile("p", 50, 0)
			if at == WarmingUp {
				p.Warmup = 4
			}
			_, err := r.Run(ctx, Trial{Dir: t.TempDir(), Config: space.Config{}, Target: enginetest.Target("vllm", "org/model", o), Profiles: []bench.Profile{p}, OnPhase: onPhase})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run = %v; want context.Canceled", err)
			}
			pids := readPIDs(t, pidFile)
			if len(pids) != 2 {
				t.Fatalf("fake recorded %v; want engine and worker", pids)
			}
			for _, p := range pids {
				if alive(p[0]) {
					t.Errorf("process %d (group %d) survived the interrupt", p[0], p[1])
				}
				if groupHasLive(p[1]) {
					t.Errorf("process group %d still has live members", p[1])
				}
			}
		})
	}
}

func TestProcessRunnerReusesAMatchingServer(t *testing.T) {
	r := fastRunner(t, WithReuse())
	tgt := enginetest.Target("sglang", "org/model", enginetest.Options{})
	cfg := space.Config{engines.KnobTP: int64(1)}
	var first, second phases
	for _, ph := range []*phases{&first, &second} {
		if _, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Config: cfg, Target: tgt, Profiles: []bench.Profile{tinyProfile("p", 3, 0)}, OnPhase: ph.add}); err != nil {
			t.Fatal(err)
		}
	}
	if first.String() != "launching → benchmarking" || second.String() != "benchmarking" {
		t.Errorf("phases: first %s, second %s; want the second to reuse the server", first.String(), second.String())
	}
	var third phases
	cfg2 := space.Config{engines.KnobTP: int64(2)}
	if _, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Config: cfg2, Target: tgt, Profiles: []bench.Profile{tinyProfile("p", 3, 0)}, OnPhase: third.add}); err != nil {
		t.Fatal(err)
	}
	if third.String() != "tearing down → launching → benchmarking" {
		t.Errorf("a different command reused the server: %s", third.String())
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(r.launcher.PidDir, "*.json")); len(left) != 0 {
		t.Errorf("engines still recorded after Close: %v", left)
	}
}

// waitForPIDs waits for the fake to record n processes; it waits on
// another process, so it polls.
func waitForPIDs(t *testing.T, path string, n int) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if len(readPIDs(t, path)) >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPIDs(t *testing.T, path string) [][2]int {
	b, _ := os.ReadFile(path)
	var out [][2]int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 {
			a, _ := strconv.Atoi(f[0])
			g, _ := strconv.Atoi(f[1])
			out = append(out, [2]int{a, g})
		}
	}
	return out
}

// alive: a zombie (exited, not yet reaped by a container without init)
// counts as dead.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

func groupHasLive(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, _ := os.ReadFile(p)
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}

// TestProcessRunnerPrunesAtACheckpoint: the bench's intermediate reports
// reach Trial.Judge once per tenth of the requests, with metrics so far;
// a stop returns ErrPruned with the partial metrics, the checkpoints and
// the verdict, and the engine is still torn down.
func TestProcessRunnerPrunesAtACheckpoint(t *testing.T) {
	r := fastRunner(t)
	tgt := enginetest.Target("vllm", "org/model", enginetest.Options{ITL: 2 * time.Millisecond})
	var steps []int
	var completed []float64
	res, err := r.Run(context.Background(), Trial{Dir: t.TempDir(), Number: 1, Config: space.Config{}, Target: tgt,
		Profiles: []bench.Profile{tinyProfile("p", 40, 0)},
		Judge: func(c Checkpoint) Verdict {
			steps = append(steps, c.Step)
			completed = append(completed, c.Metrics["completed"])
			return Verdict{Stop: c.Step == 3, Why: "step 3"}
		}})
	if !errors.Is(err, ErrPruned) {
		t.Fatalf("Run = %v, want ErrPruned", err)
	}
	if len(steps) != 3 || steps[0] != 1 || steps[2] != 3 {
		t.Fatalf("checkpoints %v, want 1, 2, 3", steps)
	}
	if completed[0] != 4 || completed[2] != 12 {
		t.Errorf("completed at checkpoints %v, want 4 and 12 of 40", completed)
	}
	if got := res.Metrics["p"]["completed"]; got < 12 || got >= 40 {
		t.Errorf("partial metrics report %v completed requests", got)
	}
	if len(res.Checkpoints) != 3 || res.Pruned == nil || res.Pruned.Why != "step 3" {
		t.Errorf("result checkpoints %d, verdict %+v: want 3 and the stopping verdict", len(res.Checkpoints), res.Pruned)
	}
}
