package studies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/samplers"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// fakeRunner measures configs with a closed-form landscape: throughput
// grows with max_running, TPOT too; mem_fraction 0.95 "OOMs".
type fakeRunner struct {
	mu     sync.Mutex // several workers may run trials at once
	calls  []space.Config
	cancel func() // when set, called during the next Run, which then fails as the ctx does
}

func (f *fakeRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, t.Config)
	f.mu.Unlock()
	if f.cancel != nil {
		f.cancel()
		f.cancel = nil
		<-ctx.Done()
		return objective.Result{GPUSeconds: 1}, ctx.Err()
	}
	mr, ok := t.Config.Int("max_running")
	if !ok {
		mr = 32
	}
	if mf, _ := t.Config.Float("mem_fraction"); mf >= 0.95 {
		return objective.Result{GPUSeconds: 60}, &engines.Failure{Class: engines.OOM, Message: "CUDA out of memory"}
	}
	m := map[string]float64{"total_tps": float64(mr) * 10, "mean_tpot_ms": float64(mr) / 2, "p99_ttft_ms": float64(mr) * 20}
	return objective.Result{Metrics: map[string]map[string]float64{t.Profiles[0].Name: m}, GPUSeconds: 100}, nil
}

func studySpace(t *testing.T, nTrials int, extra string) *space.Space {
	t.Helper()
	sp, err := space.Parse(context.Background(), "unit.toml", studySource(nTrials, extra), testSpaceOptions())
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func testSpaceOptions() space.Options { return space.Options{Metric: bench.KnownMetric} }

func studySource(nTrials int, extra string) string {
	return `
[study]
name = "unit"
sampler = "random"
seed = 5
n_trials = ` + strconv.Itoa(nTrials) + `

[target]
model = "m"
gpu = "H100"
engine = "vllm"

[[objectives]]
metric = "total_tps"
direction = "maximize"

[profiles]
run = ["p"]
[profiles.custom.p]
input_len = 10
output_len = 10
num_prompts = 5

[params.max_running]
values = [8, 16, 32, 64, 128, 256]

[params.mem_fraction]
values = [0.8, 0.9, 0.95]

[params.dp]
values = [1, 2]

[[rules]]
expr = "dp * max_running <= 256"

[baseline]
max_running = 32
` + extra
}

func openStore(t *testing.T) (*store.Store, studydir.Dir) {
	t.Helper()
	dir := studydir.Of(t.TempDir(), "unit")
	st, err := store.Open(context.Background(), dir.DB(), store.Create)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

func TestRunRecordsEveryOutcome(t *testing.T) {
	sp := studySpace(t, 20, "")
	st, dir := openStore(t)
	fr := &fakeRunner{}
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: fr, Dir: dir, Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if store.CountDone(trials) != 20 {
		t.Fatalf("%d finished trials, want 20", store.CountDone(trials))
	}
	if trials[0].Origin != "baseline" || trials[0].Config["max_running"] != int64(32) || trials[0].State != store.Complete {
		t.Errorf("first trial = %+v, want the completed baseline", trials[0])
	}
	states := map[store.State]int{}
	for i, tr := range trials {
		if tr.Number != i+1 {
			t.Fatalf("trial numbers not consecutive: %d at %d", tr.Number, i)
		}
		states[tr.State]++
		dp, _ := tr.Config.Int("dp")
		mr, _ := tr.Config.Int("max_running")
		if dp*mr > 256 && tr.State != store.Infeasible {
			t.Errorf("trial %d breaks the rule but is %s", tr.Number, tr.State)
		}
		if tr.State == store.Infeasible && tr.Why() == "" {
			t.Errorf("infeasible trial %d has no reason", tr.Number)
		}
	}
	for _, c := range fr.calls {
		dp, _ := c.Int("dp")
		mr, _ := c.Int("max_running")
		if dp*mr > 256 {
			t.Errorf("a config that breaks a rule was launched: %v", c)
		}
	}
	if states[store.Complete] == 0 || states[store.Infeasible] == 0 {
		t.Errorf("states %v: want complete and infeasible (OOM or rule) trials", states)
	}
	r := BuildReport(sp, trials, func(c space.Config) (string, error) { return "serve " + c.Summary(), nil })
	if len(r.Winners) != 1 || r.Baseline == nil {
		t.Fatalf("report: %+v", r)
	}
	w := r.Winners[0]
	if w.Values[0] < r.Baseline.Values[0] || w.VsBaseline[0] < 0 || w.Command == "" {
		t.Errorf("winner %+v is not better than the baseline %+v or lacks a command", w, r.Baseline)
	}
}

func TestResumeRecoversInterruptedTrialAndRetriesItOnce(t *testing.T) {
	sp := studySpace(t, 6, "")
	st, dir := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	fr := &fakeRunner{}
	// Run the baseline, then cancel during trial 2 as Ctrl-C would.
	fr.cancel = nil
	first := true
	wrapped := runnerFunc(func(c context.Context, tr objective.Trial) (objective.Result, error) {
		if !first {
			fr.cancel = cancel
		}
		first = false
		return fr.Run(c, tr)
	})
	err := Run(ctx, RunOptions{Space: sp, Store: st, Runner: wrapped, Dir: dir, Log: zerolog.Nop()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	trials, _ := st.Trials(context.Background())
	if len(trials) != 2 || trials[1].State != store.Interrupted {
		t.Fatalf("after cancel: %+v, want baseline + interrupted trial 2", trials)
	}
	// A RUNNING row, as kill -9 leaves it.
	orphan := store.Trial{Config: space.Config{"engine": "vllm", "max_running": int64(128), "mem_fraction": 0.8, "dp": int64(1)}, Origin: "sampler", Start: time.Now()}
	if err := begin(context.Background(), st, &orphan); err != nil {
		t.Fatal(err)
	}
	fr2 := &fakeRunner{}
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: fr2, Dir: dir, Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	trials, _ = st.Trials(context.Background())
	if store.CountDone(trials) != 6 {
		t.Fatalf("%d finished trials after resume, want 6", store.CountDone(trials))
	}
	retried := map[int]int{}
	for _, tr := range trials {
		if tr.State == store.Running {
			t.Errorf("trial %d still running", tr.Number)
		}
		if tr.RetryOf != 0 {
			retried[tr.RetryOf]++
		}
	}
	if retried[2] != 1 || retried[orphan.Number] != 1 {
		t.Errorf("retries %v: want trial 2 and trial %d retried once each", retried, orphan.Number)
	}
	if got := trials[orphan.Number-1]; got.State != store.Interrupted {
		t.Errorf("orphan trial = %+v, want failed/interrupted", got)
	}
	if len(fr2.calls) == 0 || fr2.calls[0].Key() != trials[1].Config.Key() {
		t.Errorf("resume did not retry the interrupted config first")
	}
}

func TestMeasuredConfigIsReusedNotRelaunched(t *testing.T) {
	sp := studySpace(t, 3, "")
	sp.Study.Sampler = "grid"
	st, dir := openStore(t)
	fr := &fakeRunner{}
	// The baseline {max_running=32} is not a grid point (it lacks knobs), so
	// seed a measured grid config and check the grid does not relaunch it.
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: fr, Dir: dir, Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	l := &loop{RunOptions: RunOptions{Space: sp, Store: st, Runner: fr, Dir: dir, Repeat: 1, Now: time.Now, OnEvent: func(Event) {}}}
	l.trials, _ = st.Trials(context.Background())
	var err error
	if l.sampler, err = samplers.New(context.Background(), sp.Study.Sampler, sp, 1, observations(sp, l.trials), zerolog.Nop(), search.Options{}); err != nil {
		t.Fatal(err)
	}
	done := l.trials[1]
	before := len(fr.calls)
	sp.Study.NTrials++ // room for one more trial
	runTrial(t, l, next{cfg: done.Config, origin: "sampler"})
	got := l.trials[len(l.trials)-1]
	if len(fr.calls) != before || got.Origin != "reused" || got.ReusedFrom != done.Number || got.State != done.State {
		t.Errorf("re-measured instead of reusing: calls %d→%d, trial %+v", before, len(fr.calls), got)
	}
}

func TestMultiObjectiveReportIsTheFeasibleFront(t *testing.T) {
	sp := studySpace(t, 12, `
[[constraints]]
expr = "p99_ttft_ms <= 3000"
`)
	sp.Objectives = append(sp.Objectives, space.Objective{Metric: "mean_tpot_ms", Direction: space.Minimize})
	st, dir := openStore(t)
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	trials, _ := st.Trials(context.Background())
	r := BuildReport(sp, trials, nil)
	if !r.MultiObjective || len(r.Winners) == 0 {
		t.Fatalf("report %+v", r)
	}
	for _, w := range r.Winners {
		if !w.Feasible {
			t.Errorf("infeasible trial %d on the front", w.Trial)
		}
		if mr, _ := w.Config.Int("max_running"); mr*20 > 3000 {
			t.Errorf("trial %d violates the p99 TTFT SLO but is on the front", w.Trial)
		}
	}
	// Every feasible complete trial must be on the front here (tps and
	// tpot both grow with max_running: each one trades one for the other):
	// one row per distinct measurement, the configs that measured the same
	// listed as equivalent.
	values, configs := map[int64]bool{}, map[string]bool{}
	for _, tr := range trials {
		if tr.State == store.Complete && Violation(sp, tr, Baseline(trials)) == 0 {
			mr, _ := tr.Config.Int("max_running")
			values[mr] = true
			configs[tr.Config.Key()] = true
		}
	}
	shown := 0
	for _, w := range r.Winners {
		shown += 1 + len(w.Equivalent)
	}
	if len(r.Winners) != len(values) || shown != len(configs) {
		t.Errorf("front has %d rows covering %d configs, want %d rows covering %d", len(r.Winners), shown, len(values), len(configs))
	}
}

type runnerFunc func(context.Context, objective.Trial) (objective.Result, error)

func (f runnerFunc) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	return f(ctx, t)
}

// checkpointRunner reports checkpoints whose values ramp up (the bias of
// partial figures) towards the fake landscape's final values, and stops
// when told to, charging only the time spent.
type checkpointRunner struct{ fakeRunner }

func (c *checkpointRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	res, err := c.fakeRunner.Run(ctx, t)
	if err != nil || t.Judge == nil {
		return res, err
	}
	final := res.Metrics[t.Profiles[0].Name]
	for step := 1; step < bench.Checkpoints; step++ {
		part := map[string]float64{}
		for k, v := range final {
			part[k] = v * float64(step) / 10
		}
		if t.Report(&res, t.Profiles[0].Name, step, part) {
			res.Metrics[t.Profiles[0].Name] = part
			res.GPUSeconds *= float64(step) / 10
			return res, objective.ErrPruned
		}
	}
	return res, nil
}

func TestPruningStopsClearlyWorseTrials(t *testing.T) {
	sp := studySpace(t, 12, "")
	sp.Study.Sampler = "grid"
	sp.Baseline = space.Config{"engine": "vllm", "max_running": int64(256), "mem_fraction": 0.8, "dp": int64(1)}
	st, dir := openStore(t)
	rule := search.DefaultPruneRule()
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: &checkpointRunner{}, Dir: dir, Log: zerolog.Nop(), Prune: &rule}); err != nil {
		t.Fatal(err)
	}
	trials, _ := st.Trials(context.Background())
	if trials[0].State != store.Complete || len(trials[0].Intermediate) != bench.Checkpoints-1 {
		t.Fatalf("baseline %+v: want complete with 9 checkpoints", trials[0])
	}
	pruned := 0
	for _, tr := range trials[1:] {
		mr, _ := tr.Config.Int("max_running")
		switch {
		case tr.State == store.Pruned:
			pruned++
			// The checkpoints keep the final ratio to the baseline (256):
			// 128 is 50% behind at every step, beyond every margin; 256
			// ties and must run to the end.
			if mr >= 256 {
				t.Errorf("trial %d (max_running %d) pruned, but it is within the margin", tr.Number, mr)
			}
			if tr.Reason == "" || tr.Failure != nil || tr.GPUSeconds >= 100 {
				t.Errorf("pruned trial %d: failure %+v, gpu_s %v: want a reason and a partial charge", tr.Number, tr.Failure, tr.GPUSeconds)
			}
			// The checkpoints keep the final ratio, so the projection from
			// the incumbent is exact: 10 × max_running.
			if o := observation(sp, tr, nil); o.State != search.Pruned || math.Abs(o.Value-10*float64(mr)) > 1e-6 {
				t.Errorf("pruned trial %d told as %+v, want the projected %d", tr.Number, o, 10*mr)
			}
		case tr.State == store.Complete && mr < 256:
			t.Errorf("trial %d (max_running %d) ran to the end although it could not win", tr.Number, mr)
		}
	}
	if pruned == 0 {
		t.Fatal("nothing was pruned")
	}
}

func TestBudgetStopsTheStudy(t *testing.T) {
	sp := studySpace(t, 50, "")
	st, dir := openStore(t)
	err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop(), Budget: 450 * time.Second})
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("Run = %v, want ErrBudget", err)
	}
	trials, _ := st.Trials(context.Background())
	spent := gpuTime(trials)
	// Each launched trial costs 60–100 GPU-s: the study stops at the first
	// check after the budget is spent, so it overshoots by one trial at most.
	if spent < 450*time.Second || spent > 550*time.Second {
		t.Errorf("spent %v of a 450s budget", spent)
	}
}

func TestEnqueuedConfigsRunFirstAfterTheBaseline(t *testing.T) {
	sp := studySpace(t, 4, "")
	st, dir := openStore(t)
	warm := []space.Config{
		{"max_running": int64(128), "mem_fraction": 0.8, "dp": int64(2)},
		{"max_running": int64(64), "mem_fraction": 0.9, "dp": int64(1)},
	}
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop(), Enqueue: warm}); err != nil {
		t.Fatal(err)
	}
	trials, _ := st.Trials(context.Background())
	for i, w := range warm {
		got := trials[i+1]
		if got.Origin != "enqueued" || got.Config.Key() != sp.WithTargetEngine(w).Key() {
			t.Errorf("trial %d = %s %v, want enqueued %v", got.Number, got.Origin, got.Config, w)
		}
	}
}

// An engine that cannot be run at all stops the study at once with the
// reason, instead of burning every trial; the trial is retried on resume.
func TestMissingEngineProgramStopsTheStudy(t *testing.T) {
	sp := studySpace(t, 5, "")
	st, dir := openStore(t)
	missing := runnerFunc(func(context.Context, objective.Trial) (objective.Result, error) {
		return objective.Result{}, fmt.Errorf("%w: vllm: executable file not found", launch.ErrProgram)
	})
	err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: missing, Dir: dir, Log: zerolog.Nop()})
	if !errors.Is(err, launch.ErrProgram) {
		t.Fatalf("Run = %v, want ErrProgram", err)
	}
	trials, _ := st.Trials(context.Background())
	if len(trials) != 1 || trials[0].State != store.Interrupted || store.CountDone(trials) != 0 {
		t.Fatalf("trials %+v: want one, interrupted, not counted", trials)
	}
	fr := &fakeRunner{}
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: fr, Dir: dir, Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	trials, _ = st.Trials(context.Background())
	if store.CountDone(trials) != 5 || trials[1].RetryOf != 1 {
		t.Errorf("after installing: %d done, trial 2 retries %d; want 5 and 1", store.CountDone(trials), trials[1].RetryOf)
	}
}
