package report

import (
	"sort"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
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
	// Simulated says the values come from the simulator (Runner "sim"
	// or "mixed"), not from measurements.
	Simulated bool
	Runner    string
}

// EngineVersion is one engine the trials ran and its version: the one
// the target pins, else the one the engine reported in the trials'
// fingerprints (Reported), else "".
type EngineVersion struct {
	Engine, Version string
	Reported        bool
}

func environment(sp *space.Space, trials []store.Trial, m Meta) Env {
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
		ev := EngineVersion{Engine: n, Version: sp.Target.Engines[n].Version}
		if ev.Version == "" {
			ev.Version = reportedVersion(sp, trials, n)
			ev.Reported = ev.Version != ""
		}
		e.Engines = append(e.Engines, ev)
	}
	sort.Slice(e.Engines, func(i, j int) bool { return e.Engines[i].Engine < e.Engines[j].Engine })
	return e
}

// reportedVersion is the version engine reported most often in the
// fingerprints of the trials that ran it ("" when none did).
func reportedVersion(sp *space.Space, trials []store.Trial, engine string) string {
	seen := map[string]int{}
	best := ""
	for _, t := range trials {
		fp := t.Fingerprint
		if fp == nil || fp.EngineVersion == "" || sp.WithTargetEngine(t.Config).String("engine") != engine {
			continue
		}
		seen[fp.EngineVersion]++
		if n := seen[fp.EngineVersion]; n > seen[best] || (n == seen[best] && fp.EngineVersion < best) {
			best = fp.EngineVersion
		}
	}
	return best
}
