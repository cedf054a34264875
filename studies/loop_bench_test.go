package studies

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/servetune/servetune/internal/cputime"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// BenchmarkLoopOverhead measures what the study loop itself costs per
// trial once n trials are recorded: picking (retries, baseline, repeats,
// confirmation), claiming and writing the trial in SQLite, events and
// the incumbents a trial is judged against — with the random sampler (an
// O(1) ask, feasibility off) and a runner that answers at once, so
// neither the sampler nor a simulator is in the figure. The store is
// seeded with n complete trials before the timer starts, and the timer
// restarts at the first trial the loop starts, so the one-off reading of
// the study and building of the sampler are left out (reported apart as
// startup-cpu-s: a resume's CPU before its first trial). The options are the
// CLI's: the rendered reuse key and the default confirmation share.
//
//	go test ./studies -run '^$' -bench LoopOverhead -benchtime 200x
//
// The noconfirm cases turn confirmation off; the prune cases turn the
// CLI's default pruning on (each trial reports checkpoints, judged
// against the incumbents, and confirmation asks whether each config's
// first trial was spared).
func BenchmarkLoopOverhead(b *testing.B) {
	for _, c := range []struct {
		name    string
		confirm float64
		prune   bool
	}{{"", search.DefaultConfirmShare, false}, {"noconfirm/", 0, false}, {"prune/", search.DefaultConfirmShare, true}} {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%sn=%d", c.name, n), func(b *testing.B) {
				runOverhead(b, seededStudy(b, n), n, c.confirm, c.prune)
			})
		}
	}
}

// runOverhead runs b.N more trials on a copy of the seeded study.
func runOverhead(b *testing.B, template string, n int, confirm float64, prune bool) {
	b.StopTimer()
	dir := studydir.Of(b.TempDir(), "overhead")
	copyFile(b, template, dir.DB())
	st, err := store.Open(context.Background(), dir.DB(), store.ReadWrite)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sp := overheadSpace(b, n+b.N)
	started, cpu, startup := false, cputime.Process(), time.Duration(0)
	onEvent := func(e Event) {
		if e.Kind == TrialStarted && !started {
			started, startup = true, cputime.Process()-cpu
			cpu = cputime.Process()
			b.ResetTimer()
			b.StartTimer()
		}
	}
	o := RunOptions{Space: sp, Store: st, Runner: instantRunner{}, Dir: dir, Log: zerolog.Nop(),
		OnEvent: onEvent, ReuseKey: RenderedKey(sp.Target), Confirm: confirm,
		Search: search.Options{NoFeasibility: true}}
	if prune {
		rule := search.DefaultPruneRule()
		o.Prune = &rule
	}
	err = Run(context.Background(), o)
	b.StopTimer()
	cputime.Report(b, cpu)
	if startup > 0 {
		b.ReportMetric(float64(startup)/float64(time.Second), "startup-cpu-s")
	}
	if err != nil {
		b.Fatal(err)
	}
}

// seededStudy is a study file holding the baseline and n-1 complete
// trials of distinct configs, built once per size and copied per run.
func seededStudy(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("servetune-overhead-%d-%d.db", n, os.Getpid()))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	sp := overheadSpace(b, n)
	tmp := path + ".tmp"
	os.Remove(tmp)
	st, err := store.Open(context.Background(), tmp, store.Create)
	if err != nil {
		b.Fatal(err)
	}
	rng, seen := rand.New(rand.NewSource(1)), map[string]bool{}
	for i := 0; i < n; i++ {
		t := store.Trial{Origin: "sampler", Config: sp.WithTargetEngine(sp.Sample(rng))}
		if i == 0 {
			t.Origin, t.Config = "baseline", sp.WithTargetEngine(sp.Baseline)
		}
		if seen[t.Config.Key()] {
			i--
			continue
		}
		seen[t.Config.Key()] = true
		res, _ := instantRunner{}.Run(context.Background(), objective.Trial{Config: t.Config, Profiles: sp.Profiles})
		if err := begin(context.Background(), st, &t); err != nil {
			b.Fatal(err)
		}
		t.State, t.Metrics, t.GPUSeconds = store.Complete, res.Metrics, res.GPUSeconds
		recordCheckpoints(sp, &t, res)
		if err := st.Finish(context.Background(), &t); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.Remove(path) })
	return path
}

// overheadSpace has more configs than any benchmark runs (a continuous
// knob), rendered by vLLM so the reuse key renders a real command.
func overheadSpace(b *testing.B, nTrials int) *space.Space {
	b.Helper()
	src := `
[study]
name = "overhead"
sampler = "random"
seed = 3
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
low = 1
high = 4096

[params.mem_fraction]
low = 0.5
high = 0.95

[baseline]
max_running = 32
mem_fraction = 0.9
`
	sp, err := space.Parse(context.Background(), "overhead.toml", src, testSpaceOptions())
	if err != nil {
		b.Fatal(err)
	}
	return sp
}

// instantRunner measures a config at once: throughput from its knobs,
// reached in three checkpoints (shown to the trial's judge, if any).
type instantRunner struct{}

func (instantRunner) Run(_ context.Context, t objective.Trial) (objective.Result, error) {
	mr, _ := t.Config.Int("max_running")
	mf, _ := t.Config.Float("mem_fraction")
	p, v := t.Profiles[0].Name, float64(mr)*mf+1
	res := objective.Result{Metrics: map[string]map[string]float64{p: {"total_tps": v}}, GPUSeconds: 1}
	for step := 1; step <= 3; step++ {
		m := map[string]float64{"total_tps": v * float64(step) / 3}
		if t.Judge == nil {
			res.Checkpoints = append(res.Checkpoints, objective.Checkpoint{Profile: p, Step: step, Metrics: m})
		} else if t.Report(&res, p, step, m) {
			return res, objective.ErrPruned
		}
	}
	return res, nil
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		b.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
