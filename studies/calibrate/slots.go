package calibrate

import (
	"context"
	"errors"
	"math"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// calibrationSlots are the values the fit compares (calib.Slots).
func calibrationSlots(sp *space.Space, pts []store.Trial) []calib.Slot {
	measured := make([]map[string]map[string]float64, len(pts))
	for i, t := range pts {
		measured[i] = t.Metrics
	}
	return calib.Slots(sp, measured)
}

// simulatedSlots simulates every trial once, noiselessly, on the cards
// given, and reads each slot's value (NaN where the simulator refuses
// the config or lacks the metric).
func simulatedSlots(sp *space.Space, pts []store.Trial, slots []calib.Slot) func(context.Context, *sim.Cards) ([]float64, error) {
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
			if v, ok := metrics[s.Trial][s.Profile][s.Metric]; ok {
				out[k] = v
			}
		}
		return out, nil
	}
}

// startObservations are the study's configs that started (complete or
// pruned) or ran out of memory, each once: which side of the OOM line
// they fell on identifies the memory overhead.
func startObservations(trials []store.Trial) (cfgs []space.Config, ran []bool) {
	for _, t := range trials {
		oom := t.Failure != nil && t.Failure.Class == engines.OOM
		started := t.State == store.Complete || t.State == store.Pruned
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
