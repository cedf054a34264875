package studies

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Report is the result model of a study; every renderer (text, JSON,
// Markdown) reads only this, and its JSON is the contract.
type Report struct {
	Study       string          `json:"study"`
	Model       string          `json:"model"`
	GPU         string          `json:"gpu"`
	GPUs        int             `json:"gpus"`
	Objectives  []ObjectiveInfo `json:"objectives"`
	Constraints []string        `json:"constraints,omitempty"`
	Counts      Counts          `json:"counts"`
	GPUHours    float64         `json:"gpu_hours"`
	// Runner is what measured the trials: "sim" (the simulator: every
	// value is simulated, GPU-hours too), "process" (real engines), or
	// "mixed" ("" when unknown); Simulated says whether any value is
	// simulated.
	Runner    string `json:"runner"`
	Simulated bool   `json:"simulated"`
	// Device is "gpu" or "cpu" (then GPUHours are CPU-hours and CPU names
	// the processor when a trial recorded it).
	Device string `json:"device,omitempty"`
	CPU    string `json:"cpu,omitempty"`
	// Environment lists the environments the trials ran in (engine
	// version, devices, host, checkpoint), one line each with its trials;
	// more than one means the environment drifted during the study.
	Environment    []string `json:"environment,omitempty"`
	MultiObjective bool     `json:"multi_objective"`
	Baseline       *Row     `json:"baseline,omitempty"`
	// Winners is the best trial (one objective) or the Pareto front.
	Winners []Row `json:"winners"`
	// Recommendations are the configs to deploy, decided from Winners by
	// Recommend: one under the SLO (or for one objective), else one per
	// objective.
	Recommendations []Recommendation `json:"recommendations,omitempty"`
	// NoiseCV is the run-to-run coefficient of variation used to flag front
	// members within noise of a neighbour: measured from repeated configs
	// when the study has any (NoiseMeasured, from NoiseDF degrees of
	// freedom: each repeat beyond a config's first), else DefaultNoiseCV.
	NoiseCV       float64 `json:"noise_cv"`
	NoiseMeasured bool    `json:"noise_measured"`
	NoiseDF       int     `json:"noise_df,omitempty"`
	// Drift compares every repeated measurement with its config's first
	// (absent when nothing was measured twice).
	Drift *search.Drift `json:"drift,omitempty"`
	// GuardBreaks lists every complete trial that breaks a constraint
	// relative to the baseline, per profile.
	GuardBreaks []GuardBreak `json:"guard_breaks,omitempty"`
	// SLOs are the latency bounds goodput_rps and slo_attainment count
	// against, per profile that has one.
	SLOs []ProfileSLO `json:"slos,omitempty"`
	// Saturated lists the objectives the offered load caps on most
	// trials, so they cannot separate configs, with the change to make.
	Saturated []Saturation `json:"saturated,omitempty"`
	// SimulatedGPUs are the GPU types the study simulated beside the
	// measured one (target.simulated_gpus), and GPUTypes the best config
	// of every GPU type, each saying whether it was measured or
	// simulated (routed.go); both absent unless the study simulates some
	// types of a real runner's.
	SimulatedGPUs []string      `json:"simulated_gpus,omitempty"`
	GPUTypes      []GPUTypePick `json:"gpu_types,omitempty"`
}

// DefaultNoiseCV is the noise assumed when a study repeated no config:
// 5%, half the spread of the seeds' own repeated measurement (7011 vs 5882
// total TPS for one GLM-5.2 configuration).
const DefaultNoiseCV = 0.05

// ObjectiveInfo describes one objective column.
type ObjectiveInfo struct {
	Metric    string          `json:"metric"`
	Direction space.Direction `json:"direction"`
	Profile   string          `json:"profile"`
}

// Counts tallies trials by outcome.
type Counts struct {
	Total       int `json:"total"`
	Complete    int `json:"complete"`
	Infeasible  int `json:"infeasible"`
	Failed      int `json:"failed"`
	Interrupted int `json:"interrupted"`
	Pruned      int `json:"pruned"`
	Running     int `json:"running"`
}

// Row is one reported trial.
type Row struct {
	Trial  int          `json:"trial"`
	Origin string       `json:"origin"`
	Config space.Config `json:"config"`
	Values []float64    `json:"values"`
	// VsBaseline is the % change of each objective against the baseline.
	VsBaseline []float64 `json:"vs_baseline_pct,omitempty"`
	Feasible   bool      `json:"feasible"`
	// WithinNoise marks a front member whose difference from a neighbour
	// on the front is within measurement noise on every objective.
	WithinNoise bool `json:"within_noise,omitempty"`
	// Equivalent lists other trials whose objective values are exactly
	// the same (configs that differ only in knobs with no effect): the
	// front shows one row for them.
	Equivalent []int `json:"equivalent,omitempty"`
	// Command is the ready-to-run serving command for the real engine.
	Command      string `json:"command,omitempty"`
	CommandError string `json:"command_error,omitempty"`
	// Measurements is how many times the config was measured (absent
	// when once): Values are then the mean of its measurements (their
	// median when they disagree beyond the noise: search.Central), and
	// Trial its first. UncertaintyPct is the half-width of the 95%
	// interval of Values[0], in % (uncertaintyPct).
	Measurements   int     `json:"measurements,omitempty"`
	UncertaintyPct float64 `json:"uncertainty_pct,omitempty"`
	// Ran is the command the trial's engine really ran with (prefix,
	// program override, listen flags, environment; credentials
	// redacted) when it differs from Command.
	Ran string `json:"ran,omitempty"`
	// Neighbourhood is a winner's one-knob neighbours
	// (search.OneKnobNeighbours), each measured, predicted or not
	// explored; NeighbourhoodSummary counts them in one line and
	// NeighbourhoodWarnings says where a better config may be one knob
	// away (neighbourhood.go). Winners only.
	Neighbourhood         []NeighbourRow `json:"neighbourhood,omitempty"`
	NeighbourhoodSummary  string         `json:"neighbourhood_summary,omitempty"`
	NeighbourhoodWarnings []string       `json:"neighbourhood_warnings,omitempty"`
	// Source is "measured" or "simulated" in a study that simulates some
	// GPU types beside the measured one (absent otherwise); Intervals are
	// then, for a simulated row, the simulator's stated interval around
	// each objective value, in objective order (null where it states
	// none; absent when it states none at all).
	Source    string            `json:"source,omitempty"`
	Intervals []*store.Interval `json:"intervals,omitempty"`
}

// Renderer turns a config into its serving command (engines.Render in
// the CLI); injected so reports stay testable without engines.
type Renderer func(space.Config) (string, error)

// BuildReport ranks the trials of a study.
func BuildReport(sp *space.Space, trials []store.Trial, render Renderer) Report {
	r := Report{
		Study: sp.Study.Name, Model: sp.Target.Model, GPU: sp.Target.GPU, GPUs: sp.Target.GPUs,
		MultiObjective: len(sp.Objectives) > 1,
	}
	for _, o := range sp.Objectives {
		r.Objectives = append(r.Objectives, ObjectiveInfo{o.Metric, o.Direction, sp.ObjectiveProfile(o.Profile)})
	}
	for _, c := range sp.Constraints {
		r.Constraints = append(r.Constraints, fmt.Sprintf("%s (%s)", c.Src, sp.ObjectiveProfile(c.Profile)))
	}
	for _, t := range trials {
		r.Counts.add(t)
		r.GPUHours += t.GPUSeconds / 3600
		if t.Fingerprint != nil && r.CPU == "" {
			r.CPU = t.Fingerprint.CPU
		}
	}
	r.Device, r.Environment = device(sp, trials), environments(trials)
	r.Runner = runnerOf(sp, trials)
	r.Simulated = r.Runner == "sim" || r.Runner == "mixed"
	base := Baseline(trials)
	r.GuardBreaks = guardBreaks(sp, trials, base)
	r.SLOs = profileSLOs(sp)
	r.Saturated = saturations(sp, trials)
	r.NoiseCV, r.NoiseDF = noiseCV(sp, trials)
	r.NoiseMeasured = r.NoiseDF > 0
	gs := configGroups(sp, trials)
	row := r.rower(sp, gs.of, base, render)
	if base != nil {
		b := row(*base)
		r.Baseline = &b
	}
	r.rankWinners(sp, trials, gs, nil, row, nil)
	r.fillNeighbourhoods(sp, trials, gs, nil)
	if d := drift(sp, trials); d.Pairs > 0 {
		r.Drift = &d
	}
	if routes(sp) {
		r.SimulatedGPUs = sp.Target.SimulatedGPUs
		r.GPUTypes = gpuTypePicks(sp, trials, base, r.Objectives, row)
	}
	r.Recommendations = recommendations(sp, trials, r)
	return r
}

// WithPredictions fills the winners' neighbourhoods again, a neighbour
// the study never ran now predicted where kept holds the prior's
// prediction of it (the study's kept predictions, by search.ConfigKey):
// BuildReport alone reads only the trials.
func (r *Report) WithPredictions(sp *space.Space, trials []store.Trial, kept map[string]store.Prediction) {
	r.fillNeighbourhoods(sp, trials, configGroups(sp, trials), kept)
}

// rower makes a trial's row: its values (its config's mean when measured
// more than once), against the baseline, with its command.
func (r *Report) rower(sp *space.Space, of groupOf, base *store.Trial, render Renderer) func(store.Trial) Row {
	return func(t store.Trial) Row {
		rw := Row{Trial: t.Number, Origin: t.Origin, Config: t.Config, Values: Values(sp, t), Feasible: Violation(sp, t, base) == 0}
		if routes(sp) {
			rw.Source = sourceOf(t)
			rw.Intervals = objectiveIntervals(sp, t)
		}
		of.fill(&rw, *r)
		if base != nil {
			bv := of.valuesOf(sp, *base)
			for i, v := range rw.Values {
				rw.VsBaseline = append(rw.VsBaseline, pctChange(v, bv[i]))
			}
		}
		if render != nil {
			cmd, err := render(t.Config)
			if err != nil {
				rw.CommandError = err.Error()
			}
			rw.Command = cmd
		}
		rw.Ran = ranCommand(t, rw.Command)
		return rw
	}
}

// rankWinners fills the winners (gs.winners at the report's noise, memo
// as it takes; a
// winner with exactly the values of the one before it joins its
// Equivalent) and, with several objectives, which are within noise.
func (r *Report) rankWinners(sp *space.Space, trials []store.Trial, gs, feasible groups, row func(store.Trial) Row, memo *search.PickMemo) {
	for _, g := range gs.winners(sp, trials, feasible, r.NoiseCV, memo) {
		rw := row(trials[g.runs[0]])
		if n := len(r.Winners); n > 0 && slices.Equal(r.Winners[n-1].Values, rw.Values) {
			r.Winners[n-1].Equivalent = append(r.Winners[n-1].Equivalent, rw.Trial)
			continue
		}
		r.Winners = append(r.Winners, rw)
	}
	if r.MultiObjective {
		vals := make([][]float64, len(r.Winners))
		for i, w := range r.Winners {
			vals[i] = w.Values
		}
		for i, tied := range search.NoiseTies(vals, r.NoiseCV) {
			r.Winners[i].WithinNoise = tied
		}
	}
}

// leaderKey is the config key of the report's first recommendation
// (BuildReport(sp, trials, nil).Recommendations[0]) from the config
// groups and the noise already at hand, without the rest of the report;
// empty when it recommends none.
func leaderKey(sp *space.Space, trials []store.Trial, gs, feasible groups, base *store.Trial, cv float64, df int) string {
	return leaderKeyOf(sp, trials, gs, feasible, base, cv, df, gs.of, nil)
}

// leaderKeyOf is leaderKey with the groups found by of (the loop's index
// has them by key: walking gs per pick costs the study's length) and the
// one-objective pick remembered in memo (nil: none) from one pick to the
// next.
func leaderKeyOf(sp *space.Space, trials []store.Trial, gs, feasible groups, base *store.Trial, cv float64, df int, of groupOf, memo *search.PickMemo) string {
	r := Report{MultiObjective: len(sp.Objectives) > 1, NoiseCV: cv, NoiseDF: df, NoiseMeasured: df > 0}
	for _, o := range sp.Objectives {
		r.Objectives = append(r.Objectives, ObjectiveInfo{o.Metric, o.Direction, sp.ObjectiveProfile(o.Profile)})
	}
	r.rankWinners(sp, trials, gs, feasible, r.rower(sp, of, base, nil), memo)
	picks := recommend(r.Objectives, r.Winners, r.NoiseCV, len(sp.Constraints) > 0)
	if len(picks) == 0 {
		return ""
	}
	return r.Winners[picks[0].Index].Config.Key()
}

// noiseCV estimates the run-to-run coefficient of variation of the first
// objective from configs measured more than once (--repeat), pooled, and
// its degrees of freedom (0: none was, and the CV is DefaultNoiseCV).
func noiseCV(sp *space.Space, trials []store.Trial) (float64, int) {
	groups := map[string][]float64{}
	for _, t := range trials {
		if t.State == store.Complete && t.ReusedFrom == 0 {
			if v := Values(sp, t)[0]; !math.IsNaN(v) {
				groups[t.Config.Key()] = append(groups[t.Config.Key()], v)
			}
		}
	}
	return pooledNoise(groups)
}

// PooledCV is the run-to-run noise the report states: the relative spread
// of each config's repeated measurements (groups, by config), pooled over
// the configs measured more than once; DefaultNoiseCV and false when none
// was. The lab's per-trial reading of the report uses it too.
func PooledCV(groups map[string][]float64) (float64, bool) {
	cv, df := pooledNoise(groups)
	return cv, df > 0
}

// pooledNoise is PooledCV and its degrees of freedom.
func pooledNoise(groups map[string][]float64) (float64, int) {
	ss, n := 0.0, 0
	// Sorted keys: a float sum over Go's random map order differs in its
	// last bits from run to run, and a tolerance compared at the edge
	// would then flip between two runs of the same study.
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		var df int
		ss, df = addSpread(ss, groups[k])
		n += df
	}
	if n == 0 {
		return DefaultNoiseCV, 0
	}
	return math.Sqrt(ss / float64(n)), n
}

// uncertaintyPct is the half-width of the 95% interval of the mean of n
// measurements, in %, at the noise r states: Student-t's, the measured
// noise pooled with DefaultNoiseCV (search.HalfWidth), because a few
// repeats measure the noise only roughly.
func (r Report) uncertaintyPct(n int) float64 {
	return search.HalfWidth(r.NoiseCV, r.NoiseDF, n, DefaultNoiseCV) * 100
}

// addSpread adds one config's contribution to PooledCV to ss, term by
// term (one order of summation for the pooled noise and the left-out one
// DisputedConfigs subtracts, so the noise reports state is the same to
// the last bit): its measurements' squared relative deviations from their
// mean. It returns the sum and the config's degrees of freedom (none when
// measured once).
func addSpread(ss float64, g []float64) (float64, int) {
	if len(g) < 2 {
		return ss, 0
	}
	mean := 0.0
	for _, v := range g {
		mean += v
	}
	mean /= float64(len(g))
	for _, v := range g {
		ss += (v - mean) * (v - mean) / (mean * mean)
	}
	return ss, len(g) - 1
}

func (c *Counts) add(t store.Trial) {
	c.Total++
	switch {
	case t.State == store.Running:
		c.Running++
	case t.State == store.Interrupted:
		c.Interrupted++
	case t.State == store.Complete:
		c.Complete++
	case t.State == store.Infeasible:
		c.Infeasible++
	case t.State == store.Pruned:
		c.Pruned++
	default:
		c.Failed++
	}
}

func pctChange(v, base float64) float64 {
	if base == 0 || math.IsNaN(v) || math.IsNaN(base) {
		return math.NaN()
	}
	return (v - base) / math.Abs(base) * 100
}

// SortTrials orders trials by a metric of a profile (best first for the
// given direction); trials without the metric go last.
func SortTrials(ts []store.Trial, profile, name string, dir space.Direction) {
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := metric(ts[i], profile, name), metric(ts[j], profile, name)
		switch {
		case math.IsNaN(a):
			return false
		case math.IsNaN(b):
			return true
		case dir == space.Minimize:
			return a < b
		}
		return a > b
	})
}
