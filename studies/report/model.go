package report

import (
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// Full is the result model every renderer of this package reads.
type Full struct {
	Summary    studies.Report
	Env        Env
	Profiles   []ProfileTable
	Points     []Point
	Knobs      []Knob
	Importance []Importance
	// ImportanceOf names what each objective's importance shares are of:
	// the objective's metric, or its per-GPU figure (total_tps_per_gpu)
	// when the complete trials occupied different GPU counts.
	ImportanceOf []string
	// BaselineOnly are knobs only the baseline's value varied among the
	// complete trials: importance credits them with nothing (attributable).
	BaselineOnly []string
	Failures     []FailureGroup
	// Front lists the trial numbers of the winners (best or front).
	Front map[int]bool
	// ShowWhere adds where each trial ran to the trial table (parallel
	// and distributed studies).
	ShowWhere bool
	// Forecasts compares the prior's predictions with the measurements
	// (nil when no trial was predicted); Views is the prior's view of
	// every value of the space's small knobs beside the trials there.
	Forecasts *Forecasts
	Views     []View
}

// Meta is what the study's record does not hold: the servetune that
// renders, and the moment of rendering.
type Meta struct {
	Version string
	Now     time.Time
	// Outlook is the prior's view of the space stored with the study
	// (Store.Outlook), nil when it had no prior.
	Outlook []store.Region
	// Kept are the prior's full predictions kept with the study, by
	// search.ConfigKey (nil when it kept none): a winner's neighbour the
	// study never ran is then "predicted" rather than "not explored".
	Kept map[string]store.Prediction
}

// Build assembles the full report from the same trials and renderer the
// summary report uses, so both rank alike.
func Build(sp *space.Space, trials []store.Trial, render studies.Renderer, m Meta) Full {
	f := Full{
		Summary: studies.BuildReport(sp, trials, render),
		Env:     environment(sp, trials, m),
		Points:  points(sp, trials),
		Knobs:   knobs(sp, trials),
		Front:   map[int]bool{},
	}
	if m.Kept != nil {
		f.Summary.WithPredictions(sp, trials, m.Kept)
	}
	f.Env.Unit, f.Env.Simulated, f.Env.Runner = f.Summary.HoursUnit(), f.Summary.Simulated, f.Summary.Runner
	f.ShowWhere = showWhere(f.Points)
	for _, w := range f.Summary.Winners {
		f.Front[w.Trial] = true
		for _, e := range w.Equivalent {
			f.Front[e] = true
		}
	}
	f.Profiles = profileTables(sp, trials, f.Summary)
	for i := range f.Profiles {
		for _, p := range sp.Profiles {
			if p.Name == f.Profiles[i].Profile {
				f.Profiles[i].Workload = workload(p)
			}
		}
	}
	f.Forecasts = forecasts(f.Points, trials, len(sp.Objectives))
	f.Views = views(sp, m.Outlook, f.Points)
	var ks []Knob
	ks, f.BaselineOnly = attributable(f.Points, f.Knobs)
	f.Importance, f.ImportanceOf = importanceOf(f.Summary.Objectives, f.Points, ks)
	f.Failures = failures(trials)
	return f
}
