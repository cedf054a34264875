package objective

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/space"
)

// loopbackRanks is a fake SGLang placed on two "nodes" that are both this
// machine; tp=16 needs both.
func loopbackRanks(o enginetest.Options) (space.Target, space.Config) {
	tgt := enginetest.Target("sglang", "org/model", o)
	tgt.Nodes, tgt.NodeLaunch, tgt.GPUsPerNode = []string{"127.0.0.1", "127.0.0.1"}, []string{"env", "NODE={host}"}, 8
	return tgt, space.Config{engines.KnobTP: int64(16)}
}

func runnerWithPidDir(t *testing.T, pidDir string) *ProcessRunner {
	return NewProcessRunner(zerolog.New(zerolog.NewTestWriter(t)), pidDir, WithLauncher(func(l *launch.Launcher) {
		l.Grace, l.PollInterval, l.ProbeTimeout = 2*time.Second, 20*time.Millisecond, time.Second
		l.GPUApps = func(context.Context) (launch.GPUUsage, bool, error) { return launch.GPUUsage{}, false, nil }
	}))
}

// TestMultiNodeTrialIsMeasuredAndChargedForEveryRank: a trial on two
// nodes runs through the same runner, its GPU time counts all 16 GPUs,
// and no rank outlives it.
func TestMultiNodeTrialIsMeasuredAndChargedForEveryRank(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	tgt, cfg := loopbackRanks(enginetest.Options{PIDFile: pids})
	res, err := runnerWithPidDir(t, t.TempDir()).Run(context.Background(), Trial{Dir: t.TempDir(), Config: cfg, Target: tgt,
		Profiles: []bench.Profile{tinyProfile("a", 8, 0)}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Metrics["a"]["completed"] != 8 {
		t.Errorf("metrics = %v", res.Metrics)
	}
	if res.Duration <= 0 || math.Abs(res.GPUSeconds-16*res.Duration.Seconds()) > 1e-9 {
		t.Errorf("GPUSeconds = %v for %v on tp=16", res.GPUSeconds, res.Duration)
	}
	assertNoRankLeft(t, pids, 2)
}

// TestKillingRankOneFailsTheTrialAndStopsRankZero: rank 1 killed while
// the benchmark runs fails the trial naming it, and rank 0 is torn down.
func TestKillingRankOneFailsTheTrialAndStopsRankZero(t *testing.T) {
	pidDir, pids := t.TempDir(), filepath.Join(t.TempDir(), "pids")
	tgt, cfg := loopbackRanks(enginetest.Options{PIDFile: pids, ITL: 20 * time.Millisecond})
	killed := false
	onPhase := func(p Phase) {
		if p == Benchmarking && !killed {
			killed = true
			if err := syscall.Kill(-rankPGID(t, pidDir, 1), syscall.SIGKILL); err != nil {
				t.Error(err)
			}
		}
	}
	_, err := runnerWithPidDir(t, pidDir).Run(context.Background(), Trial{Dir: t.TempDir(), Config: cfg, Target: tgt, OnPhase: onPhase,
		Profiles: []bench.Profile{tinyProfile("a", 400, 0)}})
	f, ok := engines.AsFailure(err)
	if !killed || !ok || !strings.Contains(f.Message, "rank 1 on 127.0.0.1") {
		t.Fatalf("Run = %v (killed %v); want a failure naming rank 1", err, killed)
	}
	assertNoRankLeft(t, pids, 2)
}

// rankPGID finds a rank's process group in the launcher's pidfiles.
func rankPGID(t *testing.T, pidDir string, rank int) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(pidDir, "*.json"))
	for _, f := range files {
		var rec struct {
			PGID int      `json:"pgid"`
			Argv []string `json:"argv"`
		}
		b, _ := os.ReadFile(f)
		if json.Unmarshal(b, &rec) == nil && slices.Contains(rec.Argv, "--node-rank="+strconv.Itoa(rank)) {
			return rec.PGID
		}
	}
	t.Fatalf("no pidfile for rank %d among %v", rank, files)
	return 0
}

func assertNoRankLeft(t *testing.T, pids string, n int) {
	t.Helper()
	got := readPIDs(t, pids)
	if len(got) != n {
		t.Fatalf("fake pids = %v, want %d ranks", got, n)
	}
	for _, p := range got {
		if alive(p[0]) || groupHasLive(p[1]) {
			t.Errorf("rank process %d (group %d) outlived its trial", p[0], p[1])
		}
	}
}
