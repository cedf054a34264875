package main

import (
	"context"
	"errors"
	"math"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// calibrationMetrics are fitted on every load profile besides the
// objectives: throughput, decode speed and time to first token see
// different bottlenecks, so together they tell the factors apart.
func calibrationMetrics() []string { return []string{"total_tps", "mean_tpot_ms", "mean_ttft_ms"} }

// slot is one measured value: trial, profile, metric.
type slot struct {
	trial           int
	profile, metric string
}

// calibrationSlots lists the values the fit compares: per trial, per load
// profile, the calibration metrics and the objectives measured there
// with a positive, finite value.
func calibrationSlots(sp *space.Space, pts []studies.Trial) []slot {
	var out []slot
	for i, t := range pts {
		for _, p := range sp.Profiles {
			if p.Quality() {
				continue // the simulator generates no text
			}
			for _, m := range profileMetrics(sp, p.Name) {
				if v, ok := t.Metrics[p.Name][m]; ok && v > 0 && !math.IsInf(v, 0) {
					out = append(out, slot{trial: i, profile: p.Name, metric: m})
				}
			}
		}
	}
	return out
}

func profileMetrics(sp *space.Space, profile string) []string {
	out := calibrationMetrics()
	for _, o := range sp.Objectives {
		if sp.ObjectiveProfile(o.Profile) == profile && !containsString(out, o.Metric) {
			out = append(out, o.Metric)
		}
	}
	return out
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// simulatedSlots simulates every trial once, noiselessly, on the cards
// given, and reads each slot's value (NaN where the simulator refuses
// the config or lacks the metric).
func simulatedSlots(sp *space.Space, pts []studies.Trial, slots []slot) func(context.Context, *sim.Cards) ([]float64, error) {
	t := sp.Target
	t.Sim.NoiseCV = 0
	return func(ctx context.Context, cards *sim.Cards) ([]float64, error) {
		r := objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: cards}))
		metrics := make([]map[string]map[string]float64, len(pts))
		for i, tr := range pts {
			res, err := r.Run(ctx, objective.Trial{Config: tr.Config, Target: t, Profiles: sp.Profiles})
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err == nil {
				metrics[i] = res.Metrics
			}
		}
		out := make([]float64, len(slots))
		for k, s := range slots {
			out[k] = math.NaN()
			if v, ok := metrics[s.trial][s.profile][s.metric]; ok {
				out[k] = v
			}
		}
		return out, nil
	}
}

// startObservations are the study's configs that started (complete or
// pruned) or ran out of memory, each once: which side of the OOM line
// they fell on identifies the memory overhead.
func startObservations(trials []studies.Trial) (cfgs []space.Config, ran []bool) {
	for _, t := range trials {
		oom := t.Failure != nil && t.Failure.Class == engines.OOM
		started := t.State == studies.Complete || t.State == studies.Pruned
		if t.ReusedFrom == 0 && (oom || started) {
			cfgs, ran = append(cfgs, t.Config), append(ran, started)
		}
	}
	return cfgs, ran
}

// simulatedStarts says whether the simulator starts each config on the
// cards: anything but an OOM counts as starting, since only the memory
// plan is being fitted.
func simulatedStarts(sp *space.Space, cfgs []space.Config) func(*sim.Cards) []bool {
	return func(cards *sim.Cards) []bool {
		sm := &sim.Simulator{Cards: cards}
		out := make([]bool, len(cfgs))
		for i, c := range cfgs {
			var f *engines.Failure
			err := sm.Fits(c, sp.Target)
			out[i] = !errors.As(err, &f) || f.Class != engines.OOM
		}
		return out
	}
}
