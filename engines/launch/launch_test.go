package launch_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/space"
)

func TestMain(m *testing.M) {
	enginetest.Main()
	os.Exit(m.Run())
}

// fakeable lists the engines enginetest can impersonate. Ollama is not
// among them: it needs a GGUF model and a create step, and its lifecycle
// is tested against the real binary (cmd/servetune/ollama_e2e_test.go).
func fakeable() []string {
	var out []string
	for _, e := range engines.Names() {
		if e != "ollama" {
			out = append(out, e)
		}
	}
	return out
}

func launcher(t *testing.T) *launch.Launcher {
	return &launch.Launcher{
		Log: zerolog.New(zerolog.NewTestWriter(t)), PidDir: t.TempDir(),
		Grace: 2 * time.Second, PollInterval: 20 * time.Millisecond, ProbeTimeout: time.Second,
		GPUApps: func(context.Context) (launch.GPUUsage, bool, error) { return launch.GPUUsage{}, false, nil },
	}
}

// launchModes run an engine directly and under the guardian, which must
// be invisible to everything but a dying servetune.
func launchModes() []struct {
	name  string
	guard []string
} {
	return []struct {
		name  string
		guard []string
	}{{"direct", nil}, {"guarded", enginetest.Guard()}}
}

func start(t *testing.T, l *launch.Launcher, engine string, o enginetest.Options, cfg space.Config) *launch.Server {
	t.Helper()
	tgt := enginetest.Target(engine, "org/model", o)
	tgt.ServedModelName = "served"
	s, err := l.Start(context.Background(), cfg, tgt, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

// startReady is start, then WaitReady, retried once on a port conflict
// as objective's runner does: the free port the launcher picked can be
// taken (by a parallel test's server) between choosing and binding it.
func startReady(t *testing.T, l *launch.Launcher, engine string, o enginetest.Options, cfg space.Config) *launch.Server {
	t.Helper()
	for attempt := 0; ; attempt++ {
		s := start(t, l, engine, o, cfg)
		err := s.WaitReady(context.Background(), 30*time.Second)
		if err == nil {
			return s
		}
		if f, ok := engines.AsFailure(err); ok && f.Class == engines.PortConflict && attempt == 0 {
			t.Logf("port %d taken before the engine bound it; once more on another", s.Port)
			_ = s.Stop(context.Background())
			if o.PIDFile != "" {
				_ = os.Remove(o.PIDFile) // its processes are gone; record only the engine that serves
			}
			continue
		}
		t.Fatalf("WaitReady: %v\n%s", err, strings.Join(s.Tail(20), "\n"))
	}
}

func groupGone(t *testing.T, pgid int) {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); err == nil {
		// Members may be unreaped zombies (no init in containers); the
		// launcher's check skips those, so look at /proc the same way.
		out, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, p := range out {
			b, _ := os.ReadFile(p)
			s := string(b)
			i := strings.LastIndexByte(s, ')')
			f := strings.Fields(s[i+1:])
			if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
				t.Fatalf("process group %d still has live member %s", pgid, p)
			}
		}
	}
}

// TestLifecycleConformance: every adapter's fake goes launch → ready →
// serve → teardown, with no process left and no pidfile.
func TestLifecycleConformance(t *testing.T) {
	for _, engine := range fakeable() {
		for _, m := range launchModes() {
			t.Run(engine+"/"+m.name, func(t *testing.T) {
				t.Parallel()
				l := launcher(t)
				l.Guard = m.guard
				s := startReady(t, l, engine, enginetest.Options{Worker: true, StartupDelay: 50 * time.Millisecond}, space.Config{engines.KnobTP: int64(1)})
				resp, err := http.Get(s.BaseURL + "/v1/models")
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(body), `"`+s.Model+`"`) {
					t.Errorf("/v1/models = %s; want the served name %q", body, s.Model)
				}
				req := `{"model":"` + s.Model + `","prompt":[1,2,3],"max_tokens":4,"stream":true,"ignore_eos":true}`
				resp, err = http.Post(s.BaseURL+"/v1/completions", "application/json", strings.NewReader(req))
				if err != nil {
					t.Fatal(err)
				}
				stream, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(stream), "[DONE]") {
					t.Errorf("completion stream = %s", stream)
				}
				pids, _ := filepath.Glob(filepath.Join(l.PidDir, "*.json"))
				if len(pids) != 1 {
					t.Errorf("pidfiles while running = %v", pids)
				}
				if err := s.Stop(context.Background()); err != nil {
					t.Fatal(err)
				}
				groupGone(t, s.PGID)
				if pids, _ := filepath.Glob(filepath.Join(l.PidDir, "*.json")); len(pids) != 0 {
					t.Errorf("pidfiles after Stop = %v", pids)
				}
				log, _ := os.ReadFile(s.LogPath)
				if !strings.Contains(string(log), "--port=") || !strings.Contains(string(log), "[servetune:") {
					t.Errorf("engine.log lacks the command line:\n%s", log)
				}
			})
		}
	}
}

// TestFailureClassesFromFakes: each failure class is produced by a fake
// engine printing its real messages, and classified right.
func TestFailureClassesFromFakes(t *testing.T) {
	cases := []struct {
		name  string
		o     enginetest.Options
		cfg   space.Config
		extra []string
		want  engines.Class
	}{
		{"oom", enginetest.Options{Mode: enginetest.OOM}, nil, nil, engines.OOM},
		{"oom-from-config", enginetest.Options{OOMAbove: 0.9}, space.Config{engines.KnobMemFraction: 0.95}, nil, engines.OOM},
		{"invalid", enginetest.Options{Mode: enginetest.Invalid}, nil, nil, engines.InvalidConfig},
		{"argparse", enginetest.Options{}, nil, []string{"--no-such-flag"}, engines.InvalidConfig},
		{"port", enginetest.Options{Mode: enginetest.PortConflict}, nil, nil, engines.PortConflict},
		{"crash", enginetest.Options{Mode: enginetest.Crash}, nil, nil, engines.Unknown},
		{"hang", enginetest.Options{Mode: enginetest.Hang}, nil, nil, engines.StartupTimeout},
	}
	for _, engine := range fakeable() {
		for _, c := range cases {
			for _, m := range launchModes() {
				t.Run(engine+"/"+c.name+"/"+m.name, func(t *testing.T) {
					t.Parallel()
					l := launcher(t)
					l.Guard = m.guard
					tgt := enginetest.Target(engine, "org/model", c.o)
					et := tgt.Engines[engine]
					et.ExtraArgs = c.extra
					tgt.Engines[engine] = et
					s, err := l.Start(context.Background(), c.cfg, tgt, t.TempDir())
					if err != nil {
						t.Fatal(err)
					}
					defer s.Stop(context.Background())
					// The failures end the start-up by the engine's exit, an
					// event: their limit is long, so a loaded machine that
					// starts the fake slowly cannot turn them into a timeout.
					// Only the hang waits for its limit, short, as its
					// outcome is the timeout however fast the machine.
					limit := 2 * time.Minute
					if c.want == engines.StartupTimeout {
						limit = 500 * time.Millisecond
					}
					err = s.WaitReady(context.Background(), limit)
					f, ok := engines.AsFailure(err)
					if !ok || f.Class != c.want {
						t.Fatalf("WaitReady = %v; want class %s\nlog:\n%s", err, c.want, strings.Join(s.Tail(20), "\n"))
					}
					if c.want != engines.StartupTimeout && len(f.Lines) == 0 {
						t.Errorf("failure %v keeps no deciding log lines", f)
					}
				})
			}
		}
	}
}

func TestCrashDuringBenchmark(t *testing.T) {
	l := launcher(t)
	s := startReady(t, l, "sglang", enginetest.Options{DieAfter: 1}, nil)
	resp, err := http.Post(s.BaseURL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"hi","max_tokens":2,"stream":true}`))
	if err == nil {
		resp.Body.Close()
	}
	<-s.Done()
	if f := s.Failure(engines.Serving); f.Class != engines.CrashedDuringBenchmark {
		t.Fatalf("Failure(Serving) = %v; want crashed_during_benchmark", f)
	}
}

// TestStopKillsAGroupIgnoringSIGTERM: an engine and its worker that ignore
// SIGTERM are SIGKILLed after the grace period.
func TestStopKillsAGroupIgnoringSIGTERM(t *testing.T) {
	l := launcher(t)
	l.Grace = 200 * time.Millisecond
	s := startReady(t, l, "vllm", enginetest.Options{IgnoreTerm: true, Worker: true}, nil)
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	groupGone(t, s.PGID)
}

// TestReapStale: an engine whose servetune vanished without Stop is found
// through its pidfile and stopped, worker included.
func TestReapStale(t *testing.T) {
	l := launcher(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	s := startReady(t, l, "sglang", enginetest.Options{Worker: true, PIDFile: pidFile}, nil)
	if err := launch.ReapStale(context.Background(), l.PidDir, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	groupGone(t, s.PGID)
	if left, _ := filepath.Glob(filepath.Join(l.PidDir, "*")); len(left) != 0 {
		t.Errorf("pidfiles left: %v", left)
	}
	b, _ := os.ReadFile(pidFile)
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Errorf("fake recorded %d processes, want engine and worker:\n%s", n, b)
	}
}

func TestStopWaitsForGPUs(t *testing.T) {
	l := launcher(t)
	calls := 0
	l.GPUApps = func(context.Context) (launch.GPUUsage, bool, error) {
		calls++
		if calls == 1 {
			return usage(1), true, nil // baseline: someone else's process
		}
		if calls < 4 {
			return usage(1, 4242), true, nil // our engine's memory is not freed yet
		}
		return usage(1), true, nil
	}
	s := start(t, l, "vllm", enginetest.Options{}, nil)
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if calls != 4 {
		t.Errorf("GPU apps polled %d times; want 4 (baseline, two busy, free)", calls)
	}
}

// usage is a node where each of pids holds memory on GPU 0.
func usage(pids ...int) launch.GPUUsage {
	u := launch.GPUUsage{GPUs: map[string]string{"0": "GPU-0", "1": "GPU-1"}}
	for _, p := range pids {
		u.Apps = append(u.Apps, launch.GPUApp{PID: p, GPU: "GPU-0"})
	}
	return u
}

// An engine packed onto GPU 1 does not wait at teardown for a neighbour
// that started on GPU 0 after it and still runs: trials side by side
// would otherwise wait for each other until GPUFreeTimeout.
func TestStopWaitsOnlyForItsOwnGPUs(t *testing.T) {
	l := launcher(t)
	l.GPUFreeTimeout = time.Minute
	calls := 0
	l.GPUApps = func(context.Context) (launch.GPUUsage, bool, error) {
		calls++
		if calls == 1 {
			return usage(), true, nil
		}
		return usage(4242), true, nil // the neighbour, on GPU 0, for good
	}
	tgt := enginetest.Target("vllm", "org/model", enginetest.Options{})
	tgt.Env = map[string]string{"CUDA_VISIBLE_DEVICES": "1"}
	s, err := l.Start(context.Background(), nil, tgt, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatalf("Stop waited for the neighbour: %v", err)
	}
	if calls != 2 {
		t.Errorf("GPU apps polled %d times; want 2 (baseline, free of ours)", calls)
	}
}

// On a device nvidia-smi cannot place (a MIG instance), a teardown waits
// for the engine's own processes — down to the worker that left its group
// with setsid — and not for a neighbour reported on the same GPU. Under
// the guardian, as servetune runs engines: only it stops the worker that
// left the group, which would otherwise outlive the test suite.
func TestStopOnAnUnplacedDeviceWaitsForItsOwnProcesses(t *testing.T) {
	l := guarded(t)
	l.GPUFreeTimeout = time.Minute
	pidFile := filepath.Join(t.TempDir(), "pids")
	var ours []int
	calls := 0
	l.GPUApps = func(context.Context) (launch.GPUUsage, bool, error) {
		calls++
		u := usage(999999) // the neighbour, for good
		if calls > 1 && calls < 4 {
			u = usage(append([]int{999999}, ours...)...) // our memory is not freed yet
		}
		return u, true, nil
	}
	tgt := enginetest.Target("vllm", "org/model", enginetest.Options{Workers: 2, Setsid: true, PIDFile: pidFile})
	tgt.Env = map[string]string{"CUDA_VISIBLE_DEVICES": "MIG-1"}
	s, err := l.Start(context.Background(), nil, tgt, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for pid, pgid := range recordedPIDs(t, pidFile, 3) {
		if pgid != s.PGID {
			ours = append(ours, pid) // the worker that left the group holds the memory
		}
	}
	if len(ours) != 1 {
		t.Fatalf("workers outside the engine's group: %v; want the one that called setsid", ours)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if calls != 4 {
		t.Errorf("GPU apps polled %d times; want 4 (baseline, two with our processes, free of ours)", calls)
	}
	for _, pid := range ours {
		if alive(pid) {
			t.Errorf("the worker %d that left the group outlived the engine's Stop", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
