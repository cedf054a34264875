package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib"
	"github.com/servetune/servetune/engines/sim/calib/measure"
	"github.com/servetune/servetune/internal/suggest"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
)

// maxLeaveOneOut bounds the folds: each refits every factor.
const maxLeaveOneOut = 40

// Run is one measurement as the simulator replays it.
type Run struct {
	m       measure.Measurement
	cfg     space.Config // with "engine"
	target  space.Target
	profile bench.Profile
}

// LeaveOneOut is the error of each run predicted by a fit on the others
// (calib.LeaveOneOut), refused outside 3 to maxLeaveOneOut runs.
func LeaveOneOut(ctx context.Context, p calib.Problem, trialOf []int) ([]calib.MetricError, int, error) {
	if p.Trials < 3 || p.Trials > maxLeaveOneOut {
		return nil, 0, fmt.Errorf("leave-one-out needs 3 to %d runs, have %d", maxLeaveOneOut, p.Trials)
	}
	return calib.LeaveOneOut(ctx, p, trialOf)
}

// NewRun checks a measurement against the engines and the cards and
// makes it a run the simulator replays; its errors name the
// measurement's file, line and key.
func NewRun(m measure.Measurement, cards *sim.Cards, log zerolog.Logger) (Run, error) {
	if _, ok := engines.Lookup(m.Engine, space.Target{}); !ok {
		return Run{}, m.Errorf("engine", "unknown engine %q%s (known: %s)", m.Engine,
			suggest.Hint(m.Engine, engines.Names()), strings.Join(engines.Names(), ", "))
	}
	v, err := engines.ParseVersion(m.Version)
	if m.Version == "" {
		v, err = engines.Latest(), nil
	}
	if err != nil {
		return Run{}, m.Errorf("version", "%v", err)
	}
	cfg := space.Config{}
	if len(m.Command) > 0 {
		parsed, err := engines.ParseArgs(m.Engine, m.Command, v)
		if err != nil {
			return Run{}, m.Errorf("command", "%v", err)
		}
		if len(parsed.Extra) > 0 {
			log.Warn().Str("run", m.Source).Strs("args", parsed.Extra).Msg("calibrate: arguments outside the knob table are not simulated")
		}
		cfg, m.Model = parsed.Config, cmpOr(m.Model, parsed.Model)
	}
	for k, val := range m.Config {
		if !engines.Supports(m.Engine, k) {
			return Run{}, m.Errorf("config."+k, "engine %s has no such knob%s", m.Engine, knobHint(m.Engine, k))
		}
		cfg[k] = val
	}
	cfg["engine"] = m.Engine
	if _, err := cards.GPU(m.GPU); err != nil {
		return Run{}, m.Errorf("gpu", "%v", err)
	}
	if _, err := cards.Model(m.Model); err != nil {
		return Run{}, m.Errorf("model", "%v; `servetune card` builds one from config.json for --cards", err)
	}
	t := space.Target{Runner: "sim", Model: m.Model, GPU: m.GPU, GPUs: max(m.GPUs, 1), Engine: m.Engine,
		Engines: map[string]space.EngineTarget{m.Engine: {Version: m.Version}}}
	if need := engines.GPUs(cfg, t); m.GPUs > 0 && need > m.GPUs {
		return Run{}, m.Errorf(gpusKey(m), "the config needs %d GPUs (tp × dp, or its disaggregated servers), more than gpus = %d", need, m.GPUs)
	}
	if m.GPUs <= 0 {
		// What the config occupies (tp × dp, PD pools): the simulator's
		// own count needs a target the config already fits.
		t.GPUs = max(engines.GPUs(cfg, t), 1)
	}
	p := m.Profile
	p.Name = cmpOr(p.Name, "measured")
	return Run{m: m, cfg: cfg, target: t, profile: p}, nil
}

// knobHint is "; did you mean ..." for a knob the engine lacks.
func knobHint(engine, knob string) string {
	e, ok := engines.Lookup(engine, space.Target{})
	if !ok {
		return ""
	}
	return suggest.Hint(knob, e.Knobs())
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ErrNoMetrics: no run has a metric the fit compares.
var ErrNoMetrics = errors.New("no run has a metric to fit")

// MeasurementProblem lays the runs' metrics out for calib.Fit; trialOf
// gives each value's run.
func MeasurementProblem(runs []Run, cards *sim.Cards) (calib.Problem, []int, error) {
	p := calib.Problem{Cards: cards, Trials: len(runs)}
	var trialOf []int
	type valueSlot struct {
		run    int
		metric string
	}
	var slots []valueSlot
	for i, r := range runs {
		for _, m := range calib.MeasuredMetrics() {
			if v, ok := r.m.Values[m]; ok {
				slots = append(slots, valueSlot{i, m})
				p.Labels, p.Measured, trialOf = append(p.Labels, m), append(p.Measured, v), append(trialOf, i)
			}
		}
	}
	if len(slots) == 0 {
		return p, nil, fmt.Errorf("%w (%s)", ErrNoMetrics, strings.Join(calib.MeasuredMetrics(), ", "))
	}
	fs, err := runFactors(runs, cards)
	if err != nil {
		return p, nil, err
	}
	p.Factors = fs
	p.Predict = func(ctx context.Context, c *sim.Cards) ([]float64, error) {
		metrics, err := simulateRuns(ctx, runs, c)
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(slots))
		for k, s := range slots {
			out[k] = math.NaN()
			if v, ok := metrics[s.run][runs[s.run].profile.Name][s.metric]; ok {
				out[k] = v
			}
		}
		return out, nil
	}
	return p, trialOf, nil
}

// runFactors are the candidates of every GPU and model the runs used,
// each once.
func runFactors(runs []Run, cards *sim.Cards) ([]calib.Factor, error) {
	var out []calib.Factor
	seen := map[string]bool{}
	for _, r := range runs {
		fs, err := calib.Candidates(cards, r.target.GPU, r.target.Model)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// WarnRefused says why the simulator refuses a run on the starting
// cards: the fit can only report it as refused.
func WarnRefused(ctx context.Context, runs []Run, cards *sim.Cards, log zerolog.Logger) {
	r := objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: cards}))
	for _, mr := range runs {
		if _, err := r.Run(ctx, objective.Trial{Config: mr.cfg, Target: mr.target, Profiles: []bench.Profile{mr.profile}}); err != nil && ctx.Err() == nil {
			log.Warn().Str("run", mr.m.Source).Str("config", mr.cfg.Summary()).Err(err).Msg("calibrate: the simulator refuses this run's config; it counts as refused")
		}
	}
}

// simulateRuns replays every run once, noiselessly; a run the simulator
// refuses has no metrics.
func simulateRuns(ctx context.Context, runs []Run, cards *sim.Cards) ([]map[string]map[string]float64, error) {
	r := objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: cards}))
	out := make([]map[string]map[string]float64, len(runs))
	for i, mr := range runs {
		res, err := r.Run(ctx, objective.Trial{Config: mr.cfg, Target: mr.target, Profiles: []bench.Profile{mr.profile}})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			out[i] = res.Metrics
		}
	}
	return out, nil
}

// FittedRunCards is every GPU and model card the runs used, as fitted.
func FittedRunCards(fitted *sim.Cards, runs []Run) ([]byte, error) {
	var b strings.Builder
	b.WriteString("# Written by `servetune calibrate --measurements`: cards fitted to benchmark results.\n")
	seen := map[string]bool{}
	for _, r := range runs {
		key := r.target.GPU + "\x00" + r.target.Model
		if seen[key] {
			continue
		}
		seen[key] = true
		one, err := FittedCards(fitted, fitted, r.target)
		if err != nil {
			return nil, err
		}
		b.WriteString(strings.SplitN(string(one), "\n", 2)[1])
	}
	return []byte(b.String()), nil
}

// PrintLeaveOneOut prints the leave-one-out errors per metric, or why
// there are none.
func PrintLeaveOneOut(w io.Writer, loo []calib.MetricError, refused int, err error) {
	if err != nil {
		fmt.Fprintf(w, "no leave-one-out error: %v\n", err)
		return
	}
	fmt.Fprintln(w, "leave-one-out (fit on the other runs, predict this one), median and max:")
	sort.SliceStable(loo, func(i, j int) bool { return loo[i].Metric < loo[j].Metric })
	for _, e := range loo {
		fmt.Fprintf(w, "  %-36s median %5.1f%%   max %6.1f%%%s\n", e.Metric, calib.Percent(e.Median), calib.Percent(e.Max), refusedSuffix(e.Refused))
	}
	if refused > 0 {
		fmt.Fprintf(w, "  (%d folds had too few runs for their factors and predicted on the unfitted cards)\n", refused)
	}
}

func refusedSuffix(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("   (refused by the simulator: %d)", n)
}

// gpusKey names what makes a run's config too large for its gpus: its
// tp when that alone is too large, else gpus.
func gpusKey(m measure.Measurement) string {
	if tp, ok := m.Config.Int("tp"); ok && tp > int64(m.GPUs) {
		return "config.tp"
	}
	return "gpus"
}

// LoadRuns reads every measurements file and checks each run against the
// engines and the cards (NewRun); any error is bad input.
func LoadRuns(files []string, cards *sim.Cards, log zerolog.Logger) ([]Run, error) {
	if len(files) == 0 {
		return nil, errors.New("--measurements needs at least one file")
	}
	var runs []Run
	for _, f := range files {
		ms, err := measure.Load(f)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			r, err := NewRun(m, cards, log)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// TooFewRuns says how many runs a fit needs that had too few: the factors
// they identify, and that nothing was written.
func TooFewRuns(tf *calib.TooFewTrialsError) error {
	return fmt.Errorf("calibrate: %d run%s, but %d factors are identifiable from them (%s): give at least %d runs; nothing was written",
		tf.Trials, plural(tf.Trials), len(tf.Factors), strings.Join(tf.Factors, "; "), len(tf.Factors))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
