package report

import (
	"sort"
	"strings"
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
	var list []string
	for n := range names {
		list = append(list, n)
		e.Engines = append(e.Engines, EngineVersion{n, sp.Target.Engines[n].Version})
	}
	sort.Slice(e.Engines, func(i, j int) bool { return e.Engines[i].Engine < e.Engines[j].Engine })
	e.Unit = DeviceUnit(sp.Target, list)
	return e
}

// DeviceUnit names what the study's device time counts: CPU-hours when
// the target has no GPU (gpus = 0, gpu = "cpu", or no GPU named and only
// Ollama, which runs on the CPU then), GPU-hours otherwise.
func DeviceUnit(t space.Target, engines []string) string {
	if t.GPUs == 0 || strings.EqualFold(t.GPU, "cpu") {
		return "CPU-hours"
	}
	if t.GPU == "" && len(engines) > 0 {
		onlyOllama := true
		for _, e := range engines {
			onlyOllama = onlyOllama && e == "ollama"
		}
		if onlyOllama {
			return "CPU-hours"
		}
	}
	return "GPU-hours"
}
