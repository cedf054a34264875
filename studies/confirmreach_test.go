package studies

import (
	"context"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Confirmation's state at a pick, kept by the index and read only as far
// as it can matter (the leader from search.Contenders' arms, remembered
// by search.PickMemo; Ranked down to search.Reach; the noise remembered),
// decides what the whole study read from scratch does: the groups, the
// noise, the leader over every feasible config and every feasible config
// ranked. Random histories of noisy measurements, many configs near the
// top, confirmations, pruned, failed and running trials, measurements
// taken out again, at several budgets so every phase of NextConfirm is
// reached.
func TestConfirmStateIsTheWholeStudys(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewSource(seed))
		const length = 300
		sp := confirmSpace(t, length+20)
		rule := search.DefaultPruneRule()
		l := &loop{RunOptions: RunOptions{Space: sp, Confirm: 0.3}}
		if seed%2 == 0 {
			l.Prune = &rule
		}
		cut, decided := 0, 0
		for i := 1; i <= length; i++ {
			tr := randomTrial(rng, sp, l, i)
			l.record(store.Trial{Number: tr.Number, Origin: tr.Origin, Config: tr.Config, State: store.Running})
			if tr.State != store.Running {
				l.replace(tr)
			}
			if r := l.index().running; len(r) > 0 && rng.Intn(3) == 0 { // a running trial finishes later
				u := l.trials[r[0]]
				u.State, u.Metrics, u.Intermediate = store.Complete, tr.Metrics, tr.Intermediate
				l.replace(u)
			}
			if rng.Intn(15) == 0 { // an earlier trial's record rewritten: a measurement taken out
				u := l.trials[1+rng.Intn(len(l.trials)-1)]
				u.State = []store.State{store.Failed, store.Interrupted}[rng.Intn(2)]
				l.replace(u)
			}
			whole := confirmStateByScan(l)
			for _, budget := range []int{2, 10, 40, 120} {
				got, want := l.confirmReach(budget), l.confirmState(budget)
				want.CV, want.CVDF, want.Ranked, want.Leader = whole.CV, whole.CVDF, whole.Ranked, whole.Leader
				if got.Leader != want.Leader || got.CV != want.CV || got.CVDF != want.CVDF {
					t.Fatalf("seed %d, %d trials, budget %d: leader %q at noise %v (%d df), from scratch %q at %v (%d df)",
						seed, i, budget, got.Leader, got.CV, got.CVDF, want.Leader, want.CV, want.CVDF)
				}
				if len(got.Ranked) > len(want.Ranked) || !slices.Equal(got.Ranked, want.Ranked[:len(got.Ranked)]) {
					t.Fatalf("seed %d, %d trials, budget %d: ranked %+v, from scratch %+v", seed, i, budget, got.Ranked, want.Ranked)
				}
				c, ok := search.NextConfirm(got)
				wc, wok := search.NextConfirm(want)
				if c != wc || ok != wok {
					t.Fatalf("seed %d, %d trials, budget %d: next %v %v, from scratch %v %v", seed, i, budget, c, ok, wc, wok)
				}
				cut += b2i(len(got.Ranked) < len(want.Ranked))
				decided += b2i(ok && c.Origin == "confirm")
			}
		}
		if cut < length || decided < length/10 {
			t.Errorf("seed %d: %d states cut, %d confirmations decided: the cut or the end was not exercised", seed, cut, decided)
		}
	}
}

// confirmStateByScan is what confirmState keeps, from the whole trial
// list: every feasible config ranked, the leader PickBest's over all of
// them, the noise over every config.
func confirmStateByScan(l *loop) search.ConfirmState {
	sp, ts := l.Space, l.trials
	s := search.ConfirmState{Minimize: sp.Objectives[0].Direction == space.Minimize}
	s.CV, s.CVDF = noiseCV(sp, ts)
	running := map[string]bool{}
	for _, t := range ts {
		running[t.Config.Key()] = running[t.Config.Key()] || t.State == store.Running
	}
	feasible := configGroups(sp, ts).feasible(sp)
	arms := make([]search.Arm, len(feasible))
	for i, g := range feasible {
		arms[i] = search.Arm{Config: ts[g.runs[0]].Config, Mean: g.mean[0], N: len(g.runs)}
		s.Ranked = append(s.Ranked, search.Measured{Key: g.key, Mean: g.mean[0], N: len(g.runs), Running: running[g.key],
			Spared: l.spared(g.runs[0]), Disputed: g.disputed})
	}
	if b := search.PickBest(arms, s.CV, s.Minimize); b >= 0 {
		s.Leader = feasible[b].key
	}
	return s
}

// randomTrial is trial i of a random history: the baseline first, then
// mostly new configs, some confirmations and noise repeats of measured
// ones, in any state, measured with 3% noise and three checkpoints.
func randomTrial(rng *rand.Rand, sp *space.Space, l *loop, i int) store.Trial {
	cfg := space.Config{"engine": "vllm", "max_running": int64(1 + rng.Intn(64)), "mem_fraction": []float64{0.8, 0.9}[rng.Intn(2)]}
	tr := store.Trial{Number: i, Origin: "sampler", State: store.Complete}
	switch r := rng.Float64(); {
	case i == 1:
		tr.Origin, cfg = "baseline", space.Config{"engine": "vllm", "max_running": int64(8), "mem_fraction": 0.9}
	case r < 0.15:
		tr.Origin, cfg = "confirm", l.trials[rng.Intn(len(l.trials))].Config
	case r < 0.18:
		tr.Origin, cfg = "noise", l.trials[0].Config
	}
	tr.Config = cfg
	switch r := rng.Float64(); {
	case r < 0.05:
		tr.State = store.Running
	case r < 0.1:
		tr.State = store.Pruned
	case r < 0.13:
		tr.State = store.Failed
	}
	mr, _ := cfg.Int("max_running")
	mf, _ := cfg.Float("mem_fraction")
	v := (1000 + 10*float64(mr)*mf) * (1 + 0.03*rng.NormFloat64())
	res := objective.Result{Metrics: map[string]map[string]float64{"p": {"total_tps": v}}}
	for step := 1; step <= 3; step++ {
		m := map[string]float64{"total_tps": v * float64(step) / 3 * (1 + 0.05*rng.NormFloat64())}
		res.Checkpoints = append(res.Checkpoints, objective.Checkpoint{Profile: "p", Step: step, Metrics: m})
	}
	if tr.State == store.Complete || tr.State == store.Pruned {
		tr.Metrics = res.Metrics
		recordCheckpoints(sp, &tr, res)
	}
	return tr
}

// confirmSpace has 128 configs, a third of them within 10% of the best.
func confirmSpace(t *testing.T, nTrials int) *space.Space {
	t.Helper()
	src := `
[study]
name = "reach"
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
high = 64

[params.mem_fraction]
values = [0.8, 0.9]

[baseline]
max_running = 8
mem_fraction = 0.9
`
	sp, err := space.Parse(context.Background(), "reach.toml", src, testSpaceOptions())
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
