package calibrate

import (
	"context"
	"fmt"
	"sort"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// maxTrials bounds the simulations per fitting step: a dozen
// trials pin the factors a study can identify.
const maxTrials = 12

// Study fits the cards to the study's trials; n is how many trials it
// used.
func Study(ctx context.Context, sp *space.Space, trials []store.Trial, cards *sim.Cards) (*calib.Result, int, error) {
	pts := calibrationPoints(sp, trials)
	if len(pts) < 2 {
		return nil, len(pts), fmt.Errorf("the study has %d complete trials with a positive %s; at least 2 are needed", len(pts), sp.Objectives[0].Metric)
	}
	fs, err := calib.Candidates(cards, sp.Target.GPU, sp.Target.Model)
	if err != nil {
		return nil, len(pts), err
	}
	slots := calibrationSlots(sp, pts)
	p := calib.Problem{Cards: cards, Factors: fs, Trials: len(pts), Predict: simulatedSlots(sp, pts, slots)}
	cfgs, ran := startObservations(trials)
	p.Ran, p.Starts = ran, simulatedStarts(sp, cfgs)
	for _, s := range slots {
		p.Labels = append(p.Labels, s.Profile+" "+s.Metric)
		p.Measured = append(p.Measured, pts[s.Trial].Metrics[s.Profile][s.Metric])
	}
	res, err := calib.Fit(ctx, p)
	return res, len(pts), err
}

// calibrationPoints are the study's complete, non-reused trials with a
// positive first objective, at most maxTrials, best first (the
// region the next study will care about).
func calibrationPoints(sp *space.Space, trials []store.Trial) []store.Trial {
	var out []store.Trial
	for _, t := range trials {
		if t.State == store.Complete && t.ReusedFrom == 0 && studies.Values(sp, t)[0] > 0 {
			out = append(out, t)
		}
	}
	obj := sp.Objectives[0]
	sort.SliceStable(out, func(i, j int) bool { return obj.Better(studies.Values(sp, out[i])[0], studies.Values(sp, out[j])[0]) })
	return out[:min(len(out), maxTrials)]
}
