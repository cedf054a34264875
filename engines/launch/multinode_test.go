package launch_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/space"
)

// loopbackTarget places a fake engine's trial on two "nodes" that are
// both this machine.
func loopbackTarget(engine string, o enginetest.Options, launch []string) space.Target {
	tgt := enginetest.Target(engine, "org/model", o)
	tgt.Nodes, tgt.NodeLaunch, tgt.GPUsPerNode = []string{"127.0.0.1", "127.0.0.1"}, launch, 8
	return tgt
}

func startRanks(t *testing.T, l *launch.Launcher, tgt space.Target, cfg space.Config) *launch.Server {
	t.Helper()
	s, err := l.Start(context.Background(), cfg, tgt, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	if len(s.Ranks) != 2 {
		t.Fatalf("ranks = %+v, want 2", s.Ranks)
	}
	return s
}

// flagValue finds --name=value in argv.
func flagValue(argv []string, name string) string {
	for _, a := range argv {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// TestMultiNodeTrialLaunchesEveryRank: one process per node, through
// node_launch with {host} replaced, each with its exact command, its log
// and its pidfile; ready once rank 0 serves with every rank joined; after
// Stop no rank remains.
func TestMultiNodeTrialLaunchesEveryRank(t *testing.T) {
	for _, m := range launchModes() {
		t.Run(m.name, func(t *testing.T) {
			l := launcher(t)
			l.Guard = m.guard
			tgt := loopbackTarget("sglang", enginetest.Options{}, []string{"env", "NODE={host}"})
			s := startRanks(t, l, tgt, space.Config{engines.KnobTP: int64(16)})
			meet := flagValue(s.Ranks[0].Argv, "--dist-init-addr")
			cmd := []string{"env", "NODE=127.0.0.1", enginetest.Program(), "--model-path", "org/model", "--tp-size=16", "--nnodes=2"}
			want0 := append(append([]string(nil), cmd...), "--node-rank=0", "--dist-init-addr="+meet, "--host=127.0.0.1", "--port="+flagValue(s.Argv, "--port"))
			want1 := append(append([]string(nil), cmd...), "--node-rank=1", "--dist-init-addr="+meet)
			if !strings.HasPrefix(meet, "127.0.0.1:") || !reflect.DeepEqual(s.Ranks[0].Argv, want0) || !reflect.DeepEqual(s.Ranks[1].Argv, want1) {
				t.Fatalf("argv\n rank 0 %q\n rank 1 %q\nwant\n rank 0 %q\n rank 1 %q", s.Ranks[0].Argv, s.Ranks[1].Argv, want0, want1)
			}
			if err := s.WaitReady(context.Background(), 30*time.Second); err != nil {
				t.Fatalf("WaitReady: %v\n%s", err, strings.Join(s.Tail(20), "\n"))
			}
			resp, err := http.Get(s.BaseURL + "/v1/models")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("/v1/models: %v %v", resp, err)
			}
			resp.Body.Close()
			assertRankLogs(t, s)
			if pids, _ := filepath.Glob(filepath.Join(l.PidDir, "*.json")); len(pids) != 2 {
				t.Errorf("pidfiles while running = %v, want one per rank", pids)
			}
			if err := s.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, r := range s.Ranks {
				groupGone(t, r.PGID)
			}
			if pids, _ := filepath.Glob(filepath.Join(l.PidDir, "*.json")); len(pids) != 0 {
				t.Errorf("pidfiles after Stop = %v", pids)
			}
		})
	}
}

func assertRankLogs(t *testing.T, s *launch.Server) {
	t.Helper()
	if s.Ranks[0].LogPath != s.LogPath || filepath.Base(s.Ranks[1].LogPath) != "engine.rank-1.log" {
		t.Errorf("logs %s, %s; want engine.log and engine.rank-1.log", s.Ranks[0].LogPath, s.Ranks[1].LogPath)
	}
	for i, want := range []string{"rank 0: 2 ranks joined", "rank 1 joined"} {
		b, _ := os.ReadFile(s.Ranks[i].LogPath)
		if !strings.Contains(string(b), want) || !strings.Contains(string(b), "[servetune: rank ") {
			t.Errorf("rank %d log lacks %q:\n%s", i, want, b)
		}
	}
}

// TestVLLMDataParallelRanksOnLoopback: vLLM's headless form, launched
// locally (empty node_launch).
func TestVLLMDataParallelRanksOnLoopback(t *testing.T) {
	l := launcher(t)
	s := startRanks(t, l, loopbackTarget("vllm", enginetest.Options{}, nil), space.Config{engines.KnobTP: int64(8), engines.KnobDP: int64(2)})
	if got := s.Ranks[1].Argv[1:]; !reflect.DeepEqual(got[len(got)-5:], []string{"--headless", "--data-parallel-size-local=1",
		"--data-parallel-start-rank=1", "--data-parallel-address=127.0.0.1", "--data-parallel-rpc-port=" + flagValue(s.Argv, "--data-parallel-rpc-port")}) {
		t.Fatalf("rank 1 argv %q", s.Ranks[1].Argv)
	}
	if err := s.WaitReady(context.Background(), 30*time.Second); err != nil {
		t.Fatalf("WaitReady: %v\n%s", err, strings.Join(s.Tail(20), "\n"))
	}
}

// TestKillingOneRankEndsTheTrial: SIGKILL to rank 1 while serving makes
// the trial done, its failure names rank 1, and Stop takes rank 0 down.
func TestKillingOneRankEndsTheTrial(t *testing.T) {
	for _, m := range launchModes() {
		t.Run(m.name, func(t *testing.T) {
			l := launcher(t)
			l.Guard = m.guard
			s := startRanks(t, l, loopbackTarget("sglang", enginetest.Options{}, nil), space.Config{engines.KnobTP: int64(16)})
			if err := s.WaitReady(context.Background(), 30*time.Second); err != nil {
				t.Fatalf("WaitReady: %v", err)
			}
			if err := syscall.Kill(-s.Ranks[1].PGID, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.Done():
			case <-time.After(30 * time.Second):
				t.Fatal("the trial did not end when rank 1 was killed")
			}
			if f := s.Failure(engines.Serving); !strings.Contains(f.Message, "rank 1 on 127.0.0.1") {
				t.Errorf("failure %v does not name rank 1", f)
			}
			if err := s.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			groupGone(t, s.Ranks[0].PGID)
			groupGone(t, s.Ranks[1].PGID)
		})
	}
}

// TestRankFailingAtStartupFailsReadiness: a rank that dies before rank 0
// is ready fails WaitReady, classified from that rank's own log.
func TestRankFailingAtStartupFailsReadiness(t *testing.T) {
	l := launcher(t)
	s := startRanks(t, l, loopbackTarget("sglang", enginetest.Options{CrashRank: 1}, nil), space.Config{engines.KnobTP: int64(16)})
	err := s.WaitReady(context.Background(), 30*time.Second)
	f, ok := engines.AsFailure(err)
	if !ok || !strings.Contains(f.Message, "rank 1 on 127.0.0.1") || !strings.Contains(strings.Join(f.Lines, "\n"), "illegal memory access") {
		t.Fatalf("WaitReady = %v (lines %q); want rank 1's CUDA error", err, f.Lines)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	groupGone(t, s.Ranks[0].PGID)
}

// TestConfigLargerThanTheNodesIsInvalid: more nodes needed than listed
// is the config's failure, and nothing starts.
func TestConfigLargerThanTheNodesIsInvalid(t *testing.T) {
	l := launcher(t)
	_, err := l.Start(context.Background(), space.Config{engines.KnobTP: int64(24)}, loopbackTarget("sglang", enginetest.Options{}, nil), t.TempDir())
	if f, ok := engines.AsFailure(err); !ok || f.Class != engines.InvalidConfig || !strings.Contains(f.Message, "3 nodes") {
		t.Fatalf("Start = %v, want invalid_config naming 3 nodes", err)
	}
	if pids, _ := filepath.Glob(filepath.Join(l.PidDir, "*.json")); len(pids) != 0 {
		t.Errorf("pidfiles = %v", pids)
	}
}

// TestReapStaleFindsEveryRank: each rank has its pidfile, so a later run
// stops every rank a killed servetune left behind.
func TestReapStaleFindsEveryRank(t *testing.T) {
	l := launcher(t)
	s := startRanks(t, l, loopbackTarget("sglang", enginetest.Options{}, nil), space.Config{engines.KnobTP: int64(16)})
	if err := s.WaitReady(context.Background(), 30*time.Second); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	if err := launch.ReapStale(context.Background(), l.PidDir, l.Log); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Ranks {
		groupGone(t, r.PGID)
	}
	if pids, _ := filepath.Glob(filepath.Join(l.PidDir, "*.json")); len(pids) != 0 {
		t.Errorf("pidfiles after reaping = %v", pids)
	}
}

// TestMissingNodeLauncherIsTheMachinesProblem: a node_launch program that
// is not installed stops the study (ErrProgram), not the config.
func TestMissingNodeLauncherIsTheMachinesProblem(t *testing.T) {
	l := launcher(t)
	tgt := loopbackTarget("sglang", enginetest.Options{}, []string{filepath.Join(t.TempDir(), "no-ssh"), "{host}"})
	_, err := l.Start(context.Background(), space.Config{engines.KnobTP: int64(16)}, tgt, t.TempDir())
	if !errors.Is(err, launch.ErrProgram) || !strings.Contains(err.Error(), "no-ssh") {
		t.Fatalf("Start = %v, want ErrProgram naming the launcher", err)
	}
	if pids, _ := filepath.Glob(filepath.Join(l.PidDir, "*.json")); len(pids) != 0 {
		t.Errorf("pidfiles = %v", pids)
	}
}
