package main

import (
	"context"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

const simSpeed = 2

// simTarget makes the launcher run `servetune sim serve` in place of the
// engine's binary; the adapter still renders the engine's own flags.
func simTarget(bin, engine string) space.Target {
	return space.Target{
		Runner: "process", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1, Engine: engine,
		Engines: map[string]space.EngineTarget{engine: {Command: []string{
			bin, "sim", "serve", "--engine", engine, "--gpu", "H100", "--gpus", "1",
			"--speed", strconv.Itoa(simSpeed), "--startup", "2s", "--"}}},
	}
}

func simLauncher(t *testing.T) *launch.Launcher {
	return &launch.Launcher{
		Log: zerolog.New(zerolog.NewTestWriter(t)), PidDir: t.TempDir(),
		Grace: 5 * time.Second, PollInterval: 20 * time.Millisecond, ProbeTimeout: time.Second,
		GPUApps: func(context.Context) (launch.GPUUsage, bool, error) { return launch.GPUUsage{}, false, nil },
	}
}

// gone reports whether no process of the group is left.
func gone(pgid int) bool { return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) }

// The engine adapters launch the simulator for each engine with that
// engine's rendered flags, wait for readiness, benchmark it with bench.Run
// and tear it down; the measurements are the simulator's schedule at the
// speed factor, and no process is left.
func TestSimServeLaunchedByTheEngineAdapters(t *testing.T) {
	bin := buildBinary(t)
	p := bench.Profile{Name: "small", InputLen: 256, OutputLen: 24, NumPrompts: 8, MaxConcurrency: 4, RequestRate: math.Inf(1), Seed: 7}
	for _, engine := range []string{"sglang", "vllm", "trtllm"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cfg := space.Config{engines.KnobEngine: engine, engines.KnobTP: int64(1), engines.KnobMaxRunning: int64(64)}
			if engine == "trtllm" {
				// Goes into the extra options YAML, which sim serve must read.
				cfg[engines.KnobKVCacheDType] = "fp8"
			}
			tgt := simTarget(bin, engine)
			l := simLauncher(t)
			s, err := l.Start(ctx, cfg, tgt, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop(ctx)
			if err := s.WaitReady(ctx, 20*time.Second); err != nil {
				t.Fatalf("WaitReady: %v\n%s", err, strings.Join(s.Tail(30), "\n"))
			}
			res, err := bench.Run(ctx, bench.Client{BaseURL: s.BaseURL, Model: s.Model}, p, bench.RunOptions{RequestTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			m := res.Metrics
			if m.Completed != p.NumPrompts || m.TotalInput != p.NumPrompts*p.InputLen || m.TotalOutput != p.NumPrompts*p.OutputLen {
				t.Fatalf("completed %d, input %d, output %d tokens; want %d, %d, %d", m.Completed, m.TotalInput, m.TotalOutput,
					p.NumPrompts, p.NumPrompts*p.InputLen, p.NumPrompts*p.OutputLen)
			}
			recs, dur, err := sim.New().Evaluate(ctx, cfg, tgt, p, 1)
			if err != nil {
				t.Fatal(err)
			}
			want := bench.Summarize(recs, dur, bench.SummaryOptions{})
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"mean TTFT ms", m.TTFT.Mean, want.TTFT.Mean / simSpeed},
				{"mean TPOT ms", m.TPOT.Mean, want.TPOT.Mean / simSpeed},
			} {
				t.Logf("%s = %.2f, simulator ÷ speed = %.2f", c.name, c.got, c.want)
				// Arrival jitter of real HTTP changes which requests share a
				// prefill step, and a loaded machine adds scheduling delay
				// on top of the simulated one; a wrong speed factor (or a
				// schedule not followed) is off by a factor, far more.
				if c.got < c.want/2.5 || c.got > 2.5*c.want+5 {
					t.Errorf("%s = %.2f; the simulator at speed %d says %.2f", c.name, c.got, simSpeed, c.want)
				}
			}
			if err := s.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			if !gone(s.PGID) {
				t.Errorf("process group %d still alive after Stop", s.PGID)
			}
			log, _ := os.ReadFile(s.LogPath)
			if engine == "trtllm" && !strings.Contains(string(log), `"kv_cache_dtype":"fp8"`) {
				t.Errorf("the extra options YAML was not read; engine.log:\n%s", log)
			}
			if !strings.Contains(string(log), "Shutting down") {
				t.Errorf("SIGTERM did not shut the server down cleanly; engine.log:\n%s", log)
			}
		})
	}
}

// Configs the imitated engine refuses fail at startup with its own log
// lines, and the launcher classifies them from those lines alone.
func TestSimServeStartupFailuresAreClassified(t *testing.T) {
	bin := buildBinary(t)
	cases := []struct {
		name, engine string
		cfg          space.Config
		extra        []string
		want         engines.Class
		line         string
	}{
		{"sglang KV pool empty", "sglang", space.Config{engines.KnobMemFraction: 0.1}, nil, engines.OOM, "Not enough memory. Please try to increase --mem-fraction-static"},
		{"vllm no KV memory", "vllm", space.Config{engines.KnobMemFraction: 0.2}, nil, engines.OOM, "No available memory for the cache blocks"},
		{"vllm more GPUs than the node", "vllm", space.Config{engines.KnobTP: int64(2)}, nil, engines.InvalidConfig, "is larger than the number of available GPUs"},
		{"sglang unknown flag", "sglang", space.Config{}, []string{"--no-such-flag"}, engines.InvalidConfig, "error: unrecognized arguments: --no-such-flag"},
		{"trtllm unknown flag", "trtllm", space.Config{}, []string{"--no_such_flag"}, engines.InvalidConfig, "Error: No such option: --no_such_flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tgt := simTarget(bin, c.engine)
			et := tgt.Engines[c.engine]
			et.ExtraArgs = c.extra
			tgt.Engines[c.engine] = et
			c.cfg[engines.KnobEngine] = c.engine
			s, err := simLauncher(t).Start(ctx, c.cfg, tgt, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop(ctx)
			err = s.WaitReady(ctx, 20*time.Second)
			f, ok := engines.AsFailure(err)
			if !ok || f.Class != c.want {
				t.Fatalf("WaitReady = %v; want class %s\n%s", err, c.want, strings.Join(s.Tail(30), "\n"))
			}
			if !strings.Contains(strings.Join(f.Lines, "\n"), c.line) {
				t.Errorf("deciding lines %q lack %q", f.Lines, c.line)
			}
			<-s.Done()
		})
	}
}

// `sim serve --role` is refused for an engine the adapters do not serve
// disaggregated, naming those that do (engines.PDEngines).
func TestSimServeRoleNeedsAPDEngine(t *testing.T) {
	for _, role := range []string{"prefill", "router"} {
		code, _, errText := runCLI(t, t.TempDir(), "sim", "serve", "--engine", "trtllm", "--gpu", "H100", "--role", role)
		if code != 2 || !strings.Contains(errText, "--role "+role+": only sglang and vllm serve disaggregated") {
			t.Errorf("--role %s on trtllm: exit %d, stderr %q; want 2 naming sglang and vllm", role, code, errText)
		}
	}
}
