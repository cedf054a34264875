package report

import (
	"sort"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// Env is the environment the study measured.
type Env struct {
	Study, Model, GPU string
	GPUs              int
	Engines           []EngineVersion
	Version           string
	First, Last       time.Time
	Rendered          time.Time
	// DeviceHours is the trials' device time in Unit ("GPU-hours", or
	// "CPU-hours" for a CPU target).
	DeviceHours float64
	Unit        string
}

// EngineVersion is one engine the trials ran and the version the target
// pins ("" when it pins none).
type EngineVersion struct{ Engine, Version string }

func environment(sp *space.Space, trials []studies.Trial, m Meta) Env {
	e := Env{Study: sp.Study.Name, Model: sp.Target.Model, GPU: sp.Target.GPU, GPUs: sp.Target.GPUs,
		Version: m.Version, Rendered: m.Now}
	names := map[string]bool{}
	for _, t := range trials {
		names[sp.WithTargetEngine(t.Config).String("engine")] = true
		e.DeviceHours += t.GPUSeconds / 3600
		if !t.Start.IsZero() && (e.First.IsZero() || t.Start.Before(e.First)) {
			e.First = t.Start
		}
		if t.End.After(e.Last) {
			e.Last = t.End
		}
	}
	delete(names, "")
	for n := range names {
		e.Engines = append(e.Engines, EngineVersion{n, sp.Target.Engines[n].Version})
	}
	sort.Slice(e.Engines, func(i, j int) bool { return e.Engines[i].Engine < e.Engines[j].Engine })
	return e
}
