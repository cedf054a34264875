package studies

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Recommendation is the one config to deploy for a goal: the best on an
// objective (under the study's SLO when it has one), with its serving
// command and its change against the baseline on every profile.
type Recommendation struct {
	// Goal names what the config is best at ("max total_tps", "max
	// total_tps under the SLO").
	Goal  string `json:"goal"`
	Trial int    `json:"trial"`
	// Why says how it was chosen among the front.
	Why          string          `json:"why"`
	Config       space.Config    `json:"config"`
	Command      string          `json:"command,omitempty"`
	CommandError string          `json:"command_error,omitempty"`
	Profiles     []ProfileChange `json:"profiles,omitempty"`
	// Measurements is how many times the config was measured; with more
	// than one (Confirmed) the values are their means. UncertaintyPct is
	// the half-width of the 95% interval of the first objective's value,
	// in %, from the study's noise (Report.NoiseCV and NoiseDF).
	Measurements   int     `json:"measurements"`
	Confirmed      bool    `json:"confirmed"`
	UncertaintyPct float64 `json:"uncertainty_pct"`
	// GPUs is how many GPUs the config occupies, BaselineGPUs the
	// baseline's (absent without one): where they differ, a total
	// compares machines, not configs, and each throughput's change is
	// also given per GPU (MetricChange.PerGPUVsBaseline).
	GPUs         int `json:"gpus"`
	BaselineGPUs int `json:"baseline_gpus,omitempty"`
	// Price cites the price its cost metrics used, with the price file's
	// source line (cost.Prices.Cite); empty without a price file.
	Price string `json:"price,omitempty"`
	// Source is "measured" or "simulated", and GPU the GPU type, in a
	// study that simulates some GPU types beside the measured one
	// (absent otherwise): a simulated pick is to be measured before
	// anyone buys its GPUs (Report.BuyNote).
	Source string `json:"source,omitempty"`
	GPU    string `json:"gpu,omitempty"`
}

// ProfileChange is a trial's objective and constraint metrics on one
// profile beside the baseline's.
type ProfileChange struct {
	Profile string         `json:"profile"`
	Metrics []MetricChange `json:"metrics"`
}

// MetricChange is one metric, the baseline's value and the % change
// (absent when the baseline did not measure it).
type MetricChange struct {
	Metric     string   `json:"metric"`
	Higher     bool     `json:"higher_is_better"`
	Value      float64  `json:"value"`
	Baseline   *float64 `json:"baseline,omitempty"`
	VsBaseline *float64 `json:"vs_baseline_pct,omitempty"`
	// PerGPUVsBaseline is the % change per GPU, for a throughput of a
	// config on another GPU count than the baseline's.
	PerGPUVsBaseline *float64 `json:"per_gpu_vs_baseline_pct,omitempty"`
	// Interval is the simulator's stated interval around a simulated
	// value (absent for a measured one, and where it states none).
	Interval *store.Interval `json:"interval,omitempty"`
}

// goalPick is a decision of recommend: front[Index] is the config for Goal.
type goalPick struct {
	Goal  string
	Index int
	Why   string
}

// recommend decides which front members to deploy, a pure function of
// the objectives, the front (Values in objective order, Feasible), the
// noise (relative) and whether the study has an SLO:
//
//   - with one objective, or with an SLO, one config: the best on the
//     first objective among the feasible front members;
//   - otherwise one per objective: the best on it;
//   - for a goal other than the first, a member within noise of that best
//     (|v - best| <= noise·|best|) that is better on the other objectives,
//     in order, wins instead: the difference on the goal cannot be told
//     from noise, the other can;
//   - the first objective's goal is its best mean, ties broken by the
//     others: it is the objective the study measures its noise on and
//     confirms its leader and rivals on, so its pick is the config that
//     confirmation defends. A within-noise trade there names a config the
//     means rank lower; under heavy-tailed, drifting noise such a trade
//     (measured 0.2-3.6% short, each measured up to three times) was truly
//     3-8% short, outside the uncertainty the report states for it
//     (docs/benchmarks.md, "Issue 21, third pass");
//   - a config best for several goals is one pick naming them all.
func recommend(objs []ObjectiveInfo, front []Row, noise float64, slo bool) []goalPick {
	var ok []int
	for i, r := range front {
		if r.Feasible && len(r.Values) == len(objs) && !math.IsNaN(r.Values[0]) {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	goals := len(objs)
	if slo || goals == 1 {
		goals = 1
	}
	var out []goalPick
	for g := range goals {
		tie := noise
		if g == 0 {
			tie = 0
		}
		best, why := bestFor(objs, front, ok, g, tie)
		goal := fmt.Sprintf("%s %s", short(objs[g].Direction), objs[g].Metric)
		if slo {
			goal += " under the SLO"
		}
		if n := len(out); n > 0 && out[n-1].Index == best {
			out[n-1].Goal += ", " + goal
			continue
		}
		out = append(out, goalPick{Goal: goal, Index: best, Why: why})
	}
	return out
}

// bestFor is the member of ok best on objective g, with ties within noise
// broken by the other objectives in order.
func bestFor(objs []ObjectiveInfo, front []Row, ok []int, g int, noise float64) (int, string) {
	top := ok[0]
	for _, i := range ok[1:] {
		if better(objs[g], front[i].Values[g], front[top].Values[g]) {
			top = i
		}
	}
	bv := front[top].Values[g]
	for k := range objs {
		if k == g {
			continue
		}
		pick := top
		for _, i := range ok {
			v, w := front[i].Values[g], front[i].Values[k]
			if math.Abs(v-bv) <= noise*math.Abs(bv) && !math.IsNaN(w) && better(objs[k], w, front[pick].Values[k]) {
				pick = i
			}
		}
		if pick != top {
			return pick, fmt.Sprintf("within noise (%.1f%%) of the best %s (trial %d) and better on %s", noise*100, objs[g].Metric, front[top].Trial, objs[k].Metric)
		}
	}
	return top, "best " + objs[g].Metric
}

func better(o ObjectiveInfo, a, b float64) bool {
	if o.Direction == space.Minimize {
		return a < b
	}
	return a > b
}

func short(d space.Direction) string {
	if d == space.Minimize {
		return "min"
	}
	return "max"
}

// recommendations turns Recommend's picks into what a reader deploys.
func recommendations(sp *space.Space, trials []store.Trial, r Report) []Recommendation {
	picks := recommend(r.Objectives, r.Winners, r.NoiseCV, len(sp.Constraints) > 0)
	gs := configGroups(sp, trials)
	base := Baseline(trials)
	if base != nil {
		b := gs.meanTrial(trials, *base)
		base = &b
	}
	var out []Recommendation
	for _, p := range picks {
		w := r.Winners[p.Index]
		rec := Recommendation{Goal: p.Goal, Trial: w.Trial, Why: p.Why, Config: w.Config, Command: w.Command, CommandError: w.CommandError,
			Measurements: max(1, w.Measurements), Confirmed: w.Measurements > 1, UncertaintyPct: r.uncertaintyPct(w.Measurements),
			GPUs: engines.GPUs(w.Config, sp.Target), Price: priceCite(sp.Target, w.Config)}
		if base != nil {
			rec.BaselineGPUs = engines.GPUs(base.Config, sp.Target)
		}
		if w.Source != "" {
			rec.Source, rec.GPU = w.Source, sp.Target.GPUOf(w.Config)
		}
		for _, t := range trials {
			if t.Number == w.Trial {
				rec.Profiles = profileChanges(sp, gs.meanTrial(trials, t), base)
				perGPUChanges(rec)
				changeIntervals(rec, t)
			}
		}
		out = append(out, rec)
	}
	return out
}

// changeIntervals gives each of a simulated recommendation's metrics the
// interval its trial t stated for it.
func changeIntervals(rec Recommendation, t store.Trial) {
	for _, pc := range rec.Profiles {
		for i := range pc.Metrics {
			if iv, ok := t.Intervals[pc.Profile][pc.Metrics[i].Metric]; ok {
				pc.Metrics[i].Interval = &iv
			}
		}
	}
}

// reported is a metric a recommendation shows and its direction.
type reported struct {
	name   string
	higher bool
}

// reportedMetrics are the objectives' and constraints' metrics, once each.
func reportedMetrics(sp *space.Space) []reported {
	var out []reported
	seen := map[string]bool{}
	add := func(name string, higher bool) {
		if !seen[name] {
			seen[name] = true
			out = append(out, reported{name, higher})
		}
	}
	for _, o := range sp.Objectives {
		add(o.Metric, o.Direction != space.Minimize)
	}
	for _, c := range sp.Constraints {
		add(c.Metric, c.Op == ">=" || c.Op == ">")
	}
	return out
}

// profileChanges are t's objective and constraint metrics on every
// profile it measured, against the baseline's.
func profileChanges(sp *space.Space, t store.Trial, base *store.Trial) []ProfileChange {
	var out []ProfileChange
	for _, p := range slices.Sorted(maps.Keys(t.Metrics)) {
		pc := ProfileChange{Profile: p}
		for _, n := range reportedMetrics(sp) {
			if v, ok := t.Metrics[p][n.name]; ok {
				pc.Metrics = append(pc.Metrics, metricChange(n, v, base, p))
			}
		}
		if len(pc.Metrics) > 0 {
			out = append(out, pc)
		}
	}
	return out
}

// metricChange is value v of metric n on profile p beside the baseline's.
func metricChange(n reported, v float64, base *store.Trial, p string) MetricChange {
	mc := MetricChange{Metric: n.name, Higher: n.higher, Value: v}
	if base == nil {
		return mc
	}
	if b, ok := base.Metrics[p][n.name]; ok {
		mc.Baseline = &b
		if pct := pctChange(v, b); !math.IsNaN(pct) {
			mc.VsBaseline = &pct
		}
	}
	return mc
}

// perGPUChanges gives each throughput's change per GPU where the
// recommendation and the baseline occupy different GPU counts (issue 50:
// "total_tps +532.7%" on 8 GPUs against a baseline on 2 read as a better
// config, when per GPU it was +58%).
func perGPUChanges(rec Recommendation) {
	if rec.BaselineGPUs < 1 || rec.GPUs < 1 || rec.GPUs == rec.BaselineGPUs {
		return
	}
	for _, pc := range rec.Profiles {
		for i := range pc.Metrics {
			m := &pc.Metrics[i]
			if _, ok := bench.PerGPUOf(m.Metric + bench.PerGPUSuffix); !ok || m.Baseline == nil {
				continue
			}
			if pct := pctChange(m.Value/float64(rec.GPUs), *m.Baseline/float64(rec.BaselineGPUs)); !math.IsNaN(pct) {
				m.PerGPUVsBaseline = &pct
			}
		}
	}
}

// priceCite is the price of the GPU type config c runs on, as the report
// shows it: the user's figure with its source and line, so no price reads
// as servetune's.
func priceCite(t space.Target, c space.Config) string {
	if t.PriceList == nil {
		return ""
	}
	p, ok := t.PriceList.Lookup(t.GPUOf(c))
	if !ok {
		return ""
	}
	return "Priced at " + t.PriceList.Cite(p) + "."
}
