package studies

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/pgtest"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

func TestPostgresStoreKeepsTheRecordModel(t *testing.T) {
	url := pgtest.Start(t)
	ctx := context.Background()
	sp := studySpace(t, 8, "")
	st, err := store.OpenPostgres(ctx, url, "unit", store.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dir := studydir.Of(t.TempDir(), "unit")
	if err := Run(ctx, RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop(), Workers: 3, WorkerID: "w", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	pg, err := st.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := store.CountDone(pg); got != 8 {
		t.Errorf("%d trials done in PostgreSQL, want 8", got)
	}
	if v, _ := st.Meta(ctx, "schema_version"); v != "7" {
		t.Errorf("schema_version %q, want 7", v)
	}
	again, err := store.OpenPostgres(ctx, url, "unit", store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	ro, err := again.Trials(ctx)
	if err != nil || len(ro) != len(pg) || ro[0].Origin != "baseline" || ro[0].Metrics == nil {
		t.Errorf("reopened study: %d trials (%v), want %d with the baseline's metrics", len(ro), err, len(pg))
	}
	if _, err := store.OpenPostgres(ctx, url, "other", store.ReadOnly); err == nil {
		t.Error("a study that does not exist opened read-only")
	}
}

// Four workers share a study in PostgreSQL; one is killed with -9 in the
// middle of its trial. The others finish the study: exactly n_trials,
// unique numbers, the dead trial reclaimed and retried once, no config
// measured twice.
func TestWorkerKilledMidTrialLosesOnlyItsTrial(t *testing.T) {
	url := pgtest.Start(t)
	const nTrials = 14
	doomed, claimed := startHangingWorker(t, url, nTrials)
	sp := studySpace(t, nTrials, "")
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		st, err := store.OpenPostgres(t.Context(), url, "unit", store.Create)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		wg.Go(func() {
			errs[i] = Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: studydir.Of(t.TempDir(), "unit"), Log: zerolog.Nop(),
				Shared: true, WorkerID: fmt.Sprintf("host%d", i), Lease: 2 * time.Second})
		})
	}
	if err := doomed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = doomed.Wait()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
	st, err := store.OpenPostgres(context.Background(), url, "unit", store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkSharedStudy(t, trials, nTrials, claimed)
}

// startHangingWorker starts a worker process whose trial never ends and
// returns once it has claimed one.
func startHangingWorker(t *testing.T, url string, nTrials int) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hangingWorkerEnv+"="+url, "STUDIES_TEST_N_TRIALS="+strconv.Itoa(nTrials), "STUDIES_TEST_DIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	var n int
	if _, serr := fmt.Sscanf(line, "claimed %d", &n); err != nil || serr != nil {
		t.Fatalf("hanging worker said %q (%v)", line, err)
	}
	return cmd, n
}

func checkSharedStudy(t *testing.T, trials []store.Trial, nTrials, dead int) {
	t.Helper()
	if got := store.CountDone(trials); got != nTrials {
		t.Errorf("%d trials finished, want exactly %d", got, nTrials)
	}
	seen, retries := map[string]int{}, 0
	for i, tr := range trials {
		if tr.Number != i+1 {
			t.Errorf("trial %d numbered %d", i+1, tr.Number)
		}
		switch {
		case tr.Number == dead:
			if tr.State != store.Interrupted || tr.Worker != "doomed/0" {
				t.Errorf("killed worker's trial %d: %s by %q, want interrupted, by doomed/0", dead, tr.State, tr.Worker)
			}
			continue
		case tr.RetryOf == dead:
			retries++
		case tr.State == store.Running || tr.State == store.Interrupted:
			t.Errorf("trial %d left %s", tr.Number, tr.State)
		}
		if prev, ok := seen[tr.Config.Key()]; ok {
			t.Errorf("trials %d and %d measure the same config %s", prev, tr.Number, tr.Config.Key())
		}
		seen[tr.Config.Key()] = tr.Number
	}
	if retries != 1 {
		t.Errorf("the killed trial was retried %d times, want once", retries)
	}
}

// BenchmarkClaimHeartbeatTellPostgres is the store's overhead per trial
// with 8 workers on one local PostgreSQL: claim (the serialised check and
// insert), one heartbeat, and the outcome recorded. ns/op is per trial.
func BenchmarkClaimHeartbeatTellPostgres(b *testing.B) {
	url := pgtest.Start(b)
	ctx := context.Background()
	first, err := store.OpenPostgres(ctx, url, "bench", store.Create)
	if err != nil {
		b.Fatal(err)
	}
	defer first.Close()
	var next atomic.Int64
	var worker atomic.Int64
	par := max(1, 8/runtime.GOMAXPROCS(0))
	b.SetParallelism(par)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		st, err := store.OpenPostgres(ctx, url, "bench", store.ReadWrite)
		if err != nil {
			b.Error(err)
			return
		}
		defer st.Close()
		id := fmt.Sprintf("w%d", worker.Add(1))
		for pb.Next() {
			now := time.Now()
			t := store.Trial{Config: space.Config{"i": next.Add(1)}, Origin: "sampler", Start: now, Worker: id}
			if err := st.ClaimNext(ctx, &t, now.Add(time.Minute), store.Caps{Trials: math.MaxInt32, Repeat: 1, Measurements: search.MaxMeasurements}); err != nil {
				b.Error(err)
				return
			}
			if err := st.Renew(ctx, t.Number, id, now.Add(2*time.Minute)); err != nil {
				b.Error(err)
				return
			}
			t.State, t.End = store.Complete, time.Now()
			t.Metrics = map[string]map[string]float64{"p": {"total_tps": 1}}
			if err := st.FinishLeased(ctx, &t); err != nil {
				b.Error(err)
				return
			}
		}
	})
	// What one worker waits per trial while the others contend.
	workers := par * runtime.GOMAXPROCS(0)
	b.ReportMetric(b.Elapsed().Seconds()*1e3*float64(workers)/float64(b.N), "ms/trial/worker")
}
