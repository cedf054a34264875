package studies

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// noisySimSpace is a small Qwen3-8B study on the simulator with 10%
// measurement noise per trial (each trial's seed draws its own factor).
func noisySimSpace(t testing.TB, nTrials int) *space.Space {
	t.Helper()
	src := `
[study]
name = "noisy"
sampler = "random"
seed = 11
n_trials = ` + strconv.Itoa(nTrials) + `

[target]
runner = "sim"
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 1
[target.sim]
noise_cv = 0.1

[[objectives]]
metric = "total_tps"
direction = "maximize"

[profiles]
run = ["small"]
[profiles.custom.small]
dataset = "random"
input_len = 1000
output_len = 100
num_prompts = 64
max_concurrency = 32

[params.engine]
values = ["vllm"]

[params.max_running]
values = [8, 16, 32, 64, 128, 256]

[params.mem_fraction]
values = [0.8, 0.85, 0.9]

[params.kv_cache_dtype]
values = ["auto", "fp8_e4m3"]

[baseline]
engine = "vllm"
max_running = 8
`
	sp, err := space.Parse(context.Background(), "noisy.toml", src, space.Options{
		Supports: engines.Supports, Engines: engines.Names(), Profile: bench.Lookup, Metric: bench.KnownMetric,
	})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// runNoisy runs the noisy study with confirmations on, sequentially or
// with two workers on the virtual clock.
func runNoisy(t *testing.T, workers int) (*space.Space, []store.Trial) {
	t.Helper()
	sp := noisySimSpace(t, 20)
	st, dir := openStore(t)
	rule := search.DefaultPruneRule()
	o := RunOptions{Space: sp, Store: st, Runner: objective.NewSimRunner(), Dir: dir, Log: zerolog.Nop(), Prune: &rule, Confirm: 0.2}
	if workers > 1 {
		o.Workers, o.Virtual = workers, true
	}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sp, trials
}

// Under 10% noise, a study with confirmations spends its share measuring
// the baseline and its best configs again — within n_trials — and reports
// the confirmed best at the mean of its measurements, with the 95%
// interval of that mean from the noise it measured.
func TestConfirmedBestUnderSimulatedNoise(t *testing.T) {
	for _, workers := range []int{1, 2} {
		sp, trials := runNoisy(t, workers)
		if n := store.CountDone(trials); n != 20 {
			t.Fatalf("workers %d: %d trials counted, want n_trials = 20 (confirmations included)", workers, n)
		}
		origins := map[string]int{}
		ordinary := map[string]bool{}
		for _, tr := range trials {
			origins[tr.Origin]++
			if tr.State == store.Pruned && isRemeasure(tr.Origin) {
				t.Errorf("workers %d: %s trial %d was pruned", workers, tr.Origin, tr.Number)
			}
			if !isRemeasure(tr.Origin) && tr.Origin != "reused" && tr.Origin != "revisit" {
				if ordinary[tr.Config.Key()] {
					t.Errorf("workers %d: trial %d (%s) measures %v a second time", workers, tr.Number, tr.Origin, tr.Config.Summary())
				}
				ordinary[tr.Config.Key()] = true
			}
		}
		limit := search.ConfirmLimit(search.ConfirmBudget(0.2, 20))
		if n := origins["noise"] + origins["confirm"]; origins["noise"] != 1 || n < 2 || n > limit {
			t.Errorf("workers %d: origins %v, want one noise repeat and 2 to %d noise+confirm trials", workers, origins, limit)
		}
		r := BuildReport(sp, trials, nil)
		rec := r.Recommendations[0]
		if !r.NoiseMeasured || !rec.Confirmed || rec.Measurements < 2 {
			t.Fatalf("workers %d: recommendation %+v (noise measured %v), want a confirmed best", workers, rec, r.NoiseMeasured)
		}
		if df := repeatsOf(trials); r.NoiseDF != df {
			t.Errorf("workers %d: noise from %d degrees of freedom, want %d (every measurement past a config's first)", workers, r.NoiseDF, df)
		}
		want := search.HalfWidth(r.NoiseCV, r.NoiseDF, rec.Measurements, DefaultNoiseCV) * 100
		if math.Abs(rec.UncertaintyPct-want) > 1e-9 || r.NoiseCV < 0.02 || r.NoiseCV > 0.3 {
			t.Errorf("workers %d: uncertainty %.2f%% at noise %.3f, want %.2f%% for a 10%% simulated noise", workers, rec.UncertaintyPct, r.NoiseCV, want)
		}
		mean, n := 0.0, 0
		for _, tr := range trials {
			if tr.Config.Key() == rec.Config.Key() && tr.State == store.Complete && tr.ReusedFrom == 0 {
				mean += Values(sp, tr)[0]
				n++
			}
		}
		if w := r.Winners[0]; n != rec.Measurements || math.Abs(w.Values[0]-mean/float64(n)) > 1e-6 {
			t.Errorf("workers %d: winner %v over %d measurements, want the mean %v of %d", workers, w.Values, w.Measurements, mean/float64(n), n)
		}
	}
}

// slowingRunner measures every config's later runs at half its first, as
// a machine whose load doubled during the study would.
type slowingRunner struct {
	fakeRunner
	seen map[string]int
}

func (s *slowingRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	res, err := s.fakeRunner.Run(ctx, t)
	if s.seen[t.Config.Key()]++; s.seen[t.Config.Key()] > 1 {
		for _, m := range res.Metrics {
			for k := range m {
				m[k] /= 2
			}
		}
	}
	return res, err
}

// Every repeat of a drifting machine (each config's second run at half
// its first) is caught as drift, and widens the prune margin.
func TestConfirmationsDetectDrift(t *testing.T) {
	sp := studySpace(t, 20, "")
	sp.Baseline = space.Config{"engine": "vllm", "max_running": int64(32), "mem_fraction": 0.8, "dp": int64(1)}
	st, dir := openStore(t)
	rule := search.DefaultPruneRule()
	r := &slowingRunner{seen: map[string]int{}}
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: r, Dir: dir, Log: zerolog.Nop(), Prune: &rule, Confirm: 0.3}); err != nil {
		t.Fatal(err)
	}
	trials, _ := st.Trials(context.Background())
	rep := BuildReport(sp, trials, nil)
	if rep.Drift == nil || !rep.Drift.Detected || math.Abs(rep.Drift.MeanPct+50) > 1e-6 {
		t.Fatalf("drift %+v, want detected at -50%%", rep.Drift)
	}
	if m := noiseAware(&rule, sp, trials).Margin; m <= rule.Margin {
		t.Errorf("prune margin %v after drift, want wider than %v", m, rule.Margin)
	}
}

// With two objectives, confirmation works on the config the report names
// (here the one of two tied on the first objective that is better on the
// second, though ranked after it) and weighs every feasible config as a
// rival on the first objective, the front's or not.
func TestConfirmStateFollowsTheReportsPick(t *testing.T) {
	sp := studySpace(t, 40, `
[[objectives]]
metric = "mean_tpot_ms"
direction = "minimize"
`)
	cfg := func(mr, dp int64) space.Config {
		return sp.WithTargetEngine(space.Config{"max_running": mr, "mem_fraction": 0.8, "dp": dp})
	}
	trial := func(n int, origin string, c space.Config, tps, tpot float64) store.Trial {
		return store.Trial{Number: n, State: store.Complete, Origin: origin, Config: c,
			Metrics: map[string]map[string]float64{"p": {"total_tps": tps, "mean_tpot_ms": tpot}}}
	}
	best, picked, off := cfg(64, 1), cfg(128, 1), cfg(16, 2)
	l := &loop{RunOptions: RunOptions{Space: sp}, trials: []store.Trial{
		trial(1, "baseline", cfg(32, 1), 1000, 20),
		trial(2, "sampler", best, 2000, 10),
		trial(3, "sampler", picked, 2000, 8), // tied on total_tps, better mean_tpot_ms
		trial(4, "sampler", off, 1990, 12),   // dominated by trial 2: off the front
	}}
	s := l.confirmState(4)
	if s.Leader != picked.Key() {
		t.Errorf("leader %q, want the report's pick %q", s.Leader, picked.Key())
	}
	var keys []string
	for _, m := range s.Ranked {
		keys = append(keys, m.Key)
	}
	if want := []string{best.Key(), picked.Key(), off.Key(), cfg(32, 1).Key()}; !slices.Equal(keys, want) {
		t.Errorf("ranked %v, want every feasible config by total_tps %v", keys, want)
	}
	if s.Minimize || s.AssumedCV != DefaultNoiseCV || s.CVDF != 0 {
		t.Errorf("state %+v: want maximising, the assumed noise, no repeats", s)
	}
}

// Among near-twins measured once or twice, the report names the config
// its similar configs' measurements favour, not the luckiest single
// (search.PickBest), and states that config's own mean and uncertainty;
// confirmation's leader follows it.
func TestReportPoolsNearTwins(t *testing.T) {
	sp := studySpace(t, 40, "")
	cfg := func(mr int64, mf float64) space.Config {
		return sp.WithTargetEngine(space.Config{"max_running": mr, "mem_fraction": mf})
	}
	trial := func(n int, c space.Config, tps float64) store.Trial {
		return store.Trial{Number: n, State: store.Complete, Origin: "sampler", Config: c,
			Metrics: map[string]map[string]float64{"p": {"total_tps": tps}}}
	}
	lucky, good := cfg(64, 0.8), cfg(128, 0.9)
	trials := []store.Trial{
		trial(1, cfg(8, 0.8), 30000),
		trial(2, good, 57000), trial(3, good, 54000),
		trial(4, cfg(128, 0.8), 56500), trial(5, cfg(128, 0.8), 53500),
		trial(6, cfg(64, 0.9), 54500), trial(7, cfg(64, 0.9), 51500),
		trial(8, cfg(64, 0.95), 54700), trial(9, cfg(64, 0.95), 51700),
		trial(10, cfg(128, 0.95), 54800),
		trial(11, lucky, 57000), // the best mean, measured once
	}
	trials[0].Origin = "baseline"
	rep := BuildReport(sp, trials, nil)
	if len(rep.Recommendations) == 0 {
		t.Fatal("no recommendation")
	}
	rec := rep.Recommendations[0]
	if rec.Config["max_running"] != int64(128) {
		t.Errorf("report names %v, want a max_running 128 config (the lucky single is %v)", rec.Config, lucky)
	}
	if rec.Config.Key() == good.Key() && (rec.Measurements != 2 || rec.UncertaintyPct != search.HalfWidth(rep.NoiseCV, rep.NoiseDF, 2, DefaultNoiseCV)*100) {
		t.Errorf("pick %+v: want its own 2 measurements and their uncertainty", rec)
	}
	l := &loop{RunOptions: RunOptions{Space: sp}, trials: trials}
	if s := l.confirmState(4); s.Leader != rec.Config.Key() {
		t.Errorf("confirmation's leader %q, want the report's pick %q", s.Leader, rec.Config.Key())
	}
}

// A leader whose two measurements disagree beyond the noise (one of them
// an outlier) is measured a third time, the disagreement judged against
// the noise measured without the pair itself (here none: the assumed);
// from three measurements on, the report ranks it by their median, which
// the outlier does not move.
func TestDisputedLeaderIsSettledByAThirdMeasurement(t *testing.T) {
	sp := studySpace(t, 40, "")
	cfg := func(mr int64) space.Config {
		return sp.WithTargetEngine(space.Config{"max_running": mr, "mem_fraction": 0.8})
	}
	trial := func(n int, origin string, c space.Config, tps float64) store.Trial {
		return store.Trial{Number: n, State: store.Complete, Origin: origin, Config: c,
			Metrics: map[string]map[string]float64{"p": {"total_tps": tps}}}
	}
	outlier, rival := cfg(64), cfg(128)
	trials := []store.Trial{
		trial(1, "baseline", cfg(8), 30000),
		trial(2, "sampler", outlier, 60000), // +43% on a true ~42000
		trial(3, "sampler", rival, 45000),
		trial(4, "confirm", outlier, 41000),
	}
	l := &loop{RunOptions: RunOptions{Space: sp, Confirm: 0.1}, trials: trials}
	s := l.confirmState(4)
	if s.Leader != outlier.Key() {
		t.Fatalf("leader %q, want the pair's mean %q on top", s.Leader, outlier.Key())
	}
	if c, ok := search.NextConfirm(s); !ok || c.Key != outlier.Key() {
		t.Fatalf("NextConfirm = %v, %v; want the disputed leader a third time", c, ok)
	}
	l.trials = append(l.trials, trial(5, "confirm", outlier, 42000))
	rep := BuildReport(sp, l.trials, nil)
	if rec := rep.Recommendations[0]; rec.Config.Key() != rival.Key() {
		t.Errorf("report names %v, want the rival once the outlier's median (42000) ranks it below", rec.Config)
	}
	l.trials[2].Metrics["p"]["total_tps"] = 40000 // a weaker rival: the settled config wins
	rep = BuildReport(sp, l.trials, nil)
	if w := rep.Winners[0]; w.Config.Key() != outlier.Key() || w.Measurements != 3 || w.Values[0] != 42000 {
		t.Errorf("winner %v at %v over %d measurements, want %v at the median 42000 over 3", w.Config, w.Values, w.Measurements, outlier)
	}
	// Three measurements that agree keep their mean.
	l.trials[1].Metrics["p"]["total_tps"] = 44000
	rep = BuildReport(sp, l.trials, nil)
	if w := rep.Winners[0]; w.Measurements != 3 || math.Abs(w.Values[0]-42333.333) > 0.001 {
		t.Errorf("winner at %v over %d measurements, want the mean 42333.3 of three that agree", w.Values, w.Measurements)
	}
}

// DisputedConfigs leaves each config out by subtraction; it answers as
// judging each against PooledCV of the others would, on a study where
// every config is repeated (--repeat) and one pair is an outlier.
func TestDisputedConfigsLeavesEachConfigOut(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	byConfig := map[string][]float64{"once": {100}}
	for i := range 40 {
		v := 1000 + 100*float64(i)
		byConfig[fmt.Sprint("c", i)] = []float64{v * (1 + 0.03*rng.NormFloat64()), v * (1 + 0.03*rng.NormFloat64())}
	}
	byConfig["outlier"] = []float64{5000, 3400}
	byConfig["quiet pair, noisy study"] = []float64{5000, 4300} // 15%: within 3·√2 of the study's noise
	got := DisputedConfigs(byConfig)
	for k, vs := range byConfig {
		others := maps.Clone(byConfig)
		delete(others, k)
		cv, _ := PooledCV(others)
		df := 0
		for _, o := range others {
			df += max(0, len(o)-1)
		}
		if want := search.Disputed(vs, search.PriorCV(cv, df, DefaultNoiseCV)); got[k] != want {
			t.Errorf("%s %v: disputed %v, want %v (cv of the others %.4f)", k, vs, got[k], want, cv)
		}
	}
	if !got["outlier"] || got["quiet pair, noisy study"] {
		t.Errorf("disputed %v: want the outlier only", got)
	}
}

// repeatsOf counts the complete measurements past each config's first.
func repeatsOf(trials []store.Trial) int {
	seen, n := map[string]bool{}, 0
	for _, tr := range trials {
		if tr.State != store.Complete || tr.ReusedFrom != 0 {
			continue
		}
		if seen[tr.Config.Key()] {
			n++
		}
		seen[tr.Config.Key()] = true
	}
	return n
}
