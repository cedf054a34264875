package fidelity

import (
	"context"
	"fmt"

	"github.com/BurntSushi/toml"
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// Seeds are the seed reports' measured points (engines/sim/testdata/
// calibration.toml): the vLLM ones join a fit as whole-benchmark rows,
// duration = idle + coefficients · Σ step features.
type Seeds struct {
	Docs     map[string]seedDoc       `toml:"doc"`
	Profiles map[string]bench.Profile `toml:"profile"`
	Points   []SeedPoint              `toml:"point"`
}

type seedDoc struct {
	Model string `toml:"model"`
	GPU   string `toml:"gpu"`
	GPUs  int    `toml:"gpus"`
}

// SeedPoint is one measured configuration of a seed report.
type SeedPoint struct {
	Doc      string         `toml:"doc"`
	Name     string         `toml:"name"`
	Profile  string         `toml:"profile"`
	Config   map[string]any `toml:"config"`
	TotalTPS float64        `toml:"total_tps"`
	Failure  string         `toml:"failure"`
}

// LoadSeeds reads a seed points file.
func LoadSeeds(path string) (*Seeds, error) {
	var s Seeds
	if _, err := toml.DecodeFile(path, &s); err != nil {
		return nil, err
	}
	for name, p := range s.Profiles {
		p.Name = name
		s.Profiles[name] = p
	}
	return &s, nil
}

// vllm is the points a vLLM fit can use: measured throughput, no failure.
func (s *Seeds) vllm() []SeedPoint {
	var out []SeedPoint
	for _, p := range s.Points {
		if p.Config["engine"] == engines.VLLM && p.TotalTPS > 0 && p.Failure == "" {
			out = append(out, p)
		}
	}
	return out
}

func (s *Seeds) inputs(p SeedPoint) (space.Config, space.Target, bench.Profile, error) {
	d, ok := s.Docs[p.Doc]
	prof, ok2 := s.Profiles[p.Profile]
	if !ok || !ok2 {
		return nil, space.Target{}, bench.Profile{}, fmt.Errorf("seed point %s/%s: unknown doc or profile", p.Doc, p.Name)
	}
	cfg := space.Config{}
	for k, v := range p.Config {
		cfg[k] = space.Normalize(v)
	}
	return cfg, space.Target{Model: d.Model, GPU: d.GPU, GPUs: d.GPUs}, prof, nil
}

// seedWeight is a seed point's weight against a calibration run's (whose
// e2e and TTFT rows weigh 1 each): the seeds are the only vLLM data on
// MLA, 256-expert and H200 configs, and their engine comparisons must
// survive the fit.
const seedWeight = 1

// seedRows linearises each vLLM seed point's benchmark duration.
func seedRows(ctx context.Context, cards *sim.Cards, c *sim.Coefficients, s *Seeds) ([]row, error) {
	var rows []row
	for _, p := range s.vllm() {
		cfg, t, prof, err := s.inputs(p)
		if err != nil {
			return nil, err
		}
		sm := &sim.Simulator{Cards: cards, Coef: c}
		recs, _, tr, err := sm.EvaluateTrace(ctx, cfg, t, prof, 1)
		if err != nil {
			return nil, fmt.Errorf("seed point %s/%s: %w", p.Doc, p.Name, err)
		}
		m := bench.Summarize(recs, 1, bench.SummaryOptions{NoITL: true})
		measured := float64(m.TotalInput+m.TotalOutput) / p.TotalTPS // seconds
		var rw row
		for i := range rw.a {
			rw.a[i] = tr.Steps[i] / measured
		}
		rw.a[len(rw.a)-1] += tr.Idle / measured // fFixed: coefficient 1
		rw.w = seedWeight
		rows = append(rows, rw)
	}
	return rows, nil
}
