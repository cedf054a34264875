package search

import (
	"context"

	"github.com/servetune/servetune/space"
)

// What a prior is, and what a sampler it guides can tell about it. The
// sampler a prior guides lives in search/prior; these are the words the
// study, the simulator prior and the reports share with it.

// Prior predicts a config's objective values (space order) without
// measuring it, and whether it would start at all (feasible false: out
// of memory or refused). The simulator is the prior servetune wires in;
// search does not import it.
//
// A prediction stops when ctx is cancelled (it is then worth nothing:
// callers check ctx before using it).
type Prior interface {
	Predict(ctx context.Context, c space.Config) (values []float64, feasible bool)
}

// Screener is a Prior that also offers a cheaper, coarser prediction
// which keeps the ranking (the simulator on a shortened benchmark). The
// prior screens many configs with Screen and predicts with Predict only
// the few that screening ranks near the top, so it can look at thousands
// of configs for the price of hundreds.
type Screener interface {
	Prior
	Screen(ctx context.Context, c space.Config) (values []float64, feasible bool)
}

// MemoryPlanner is a Prior whose memory plan can be asked how a config
// fares on a machine unlike the card: fits reports whether the plan
// starts c with mem times the card's usable GPU memory and overhead times
// its overheads besides weights and KV cache; ok is false when the plan
// refuses c for another reason (memory says nothing about it).
type MemoryPlanner interface {
	MemoryFits(c space.Config, mem, overhead float64) (fits, ok bool)
}

// MachinePredictor is a Prior that can predict a config on a machine
// unlike its card: mem times the card's usable memory, overhead times its
// overheads besides weights and KV cache (MemoryPlanner's scales).
type MachinePredictor interface {
	PredictOn(ctx context.Context, c space.Config, mem, overhead float64) (values []float64, feasible bool)
}

// MachineScreener is a MachinePredictor that also screens on another
// machine (Screener's cheaper prediction, on the scaled cards).
type MachineScreener interface {
	ScreenOn(ctx context.Context, c space.Config, mem, overhead float64) (values []float64, feasible bool)
}

// MemoryLearner is a Sampler whose prior learns the machine's memory from
// the study's trials: what a report or log can say about why the prior's
// out-of-memory predictions moved.
type MemoryLearner interface {
	// LearntMemory is the learned scales of the card's usable memory and
	// of its overheads besides weights and KV cache (posterior geometric
	// means); contradicted is false while every trial agreed with the
	// card's plan (the scales are then the prior's, not evidence).
	LearntMemory() (mem, overhead float64, contradicted bool)
}

// Proposal says where a proposed config came from and what the prior
// predicted for it, so a study can record why each trial ran and later
// compare the prediction with the measurement.
type Proposal struct {
	// Origin is "prior" when the prior chose the config, "revisit" when
	// it chose a pruned config again (search/prior), "sampler" when
	// the inner sampler did.
	Origin string
	// Predicted are the prior's objective values (space order), nil when
	// it predicted none; Feasible whether it predicted the config starts.
	Predicted []float64
	Feasible  bool
	// Intervals are the prior's stated intervals around Predicted (one
	// per objective, nil where it states none), nil when it states none.
	Intervals []*Interval
}

// Explainer is a Sampler that can say where a config it proposed came
// from. Samplers without a prior need not implement it: their proposals
// are all the sampler's own.
type Explainer interface {
	Explain(c space.Config) (Proposal, bool)
}

// Region is the prior's view of one value of one knob: the best values it
// predicted on each objective (space order; NaN when none) among the
// configs with that value it looked at. Full counts those it predicted
// fully; Screened those only screened, whose values Best uses only when
// no full prediction exists (FromScreening).
type Region struct {
	Knob, Value    string
	Best           []float64
	Full, Screened int
	FromScreening  bool
}

// Outlooker is a Sampler that can tell what its prior thinks of the
// regions of the space, tried or not.
type Outlooker interface {
	Outlook() []Region
}
