package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/servetune/servetune/bench"
)

// workload describes a profile's load in a line, as hand-made reports
// do: "random, 8K in / 1K out, 1000 prompts, rate inf, concurrency 256".
func workload(p bench.Profile) string {
	var parts []string
	ds := p.Dataset
	if ds == "" {
		ds = "random"
	}
	parts = append(parts, ds)
	if p.InputLen > 0 || p.OutputLen > 0 {
		parts = append(parts, fmt.Sprintf("%s in / %s out", tokens(p.InputLen), tokens(p.OutputLen)))
	}
	if p.DatasetName() == bench.DatasetTrace {
		parts = append(parts, fmt.Sprintf("%s (%v)", p.DatasetPath, p.Trace))
	}
	if p.PrefixLen > 0 {
		parts = append(parts, fmt.Sprintf("%s shared prefix", tokens(p.PrefixLen)))
	}
	if p.NumPrompts > 0 {
		parts = append(parts, fmt.Sprintf("%d prompts", p.NumPrompts))
	}
	switch {
	case math.IsInf(p.RequestRate, 1):
		parts = append(parts, "all at once (rate inf)")
	case p.RequestRate > 0:
		parts = append(parts, fmt.Sprintf("rate %g req/s", p.RequestRate))
	}
	if p.MaxConcurrency > 0 {
		parts = append(parts, fmt.Sprintf("concurrency %d", p.MaxConcurrency))
	}
	if p.Kind == "quality" {
		parts = append(parts, "quality (greedy replies scored)")
	}
	return strings.Join(parts, ", ")
}

// tokens writes a token count as reports do: 8192 → 8K, 1000 → 1000.
func tokens(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return fmt.Sprintf("%dK", n/1024)
	}
	return fmt.Sprint(n)
}
