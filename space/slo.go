package space

import (
	"fmt"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/internal/suggest"
)

// metricHint is the did-you-mean for a metric name no profile produces
// (`p99_tfft_ms` → `p99_ttft_ms`, a stage's prefix kept).
func metricHint(name string) string {
	return suggest.Hint(name, bench.MetricCandidates(name))
}

// slo reads the study's [slo] table: the default SLO of every profile
// that sets none of its own. An absent table is nil.
func (d *decoder) slo(raw map[string]any) *bench.SLO {
	if _, ok := raw["slo"]; !ok {
		return nil
	}
	m := d.table(raw, "slo", "slo", "ttft_ms", "tpot_ms", "e2el_ms")
	var s bench.SLO
	for _, b := range []struct {
		key string
		to  *float64
	}{{"ttft_ms", &s.TTFTMs}, {"tpot_ms", &s.TPOTMs}, {"e2el_ms", &s.E2ELMs}} {
		if v, ok := d.number(m, b.key, "slo"); ok {
			*b.to = v
			if !(v > 0) {
				d.fail(join("slo", b.key), "must be a positive number of milliseconds, got %v", v)
			} else if v > bench.MaxSLOMs {
				d.fail(join("slo", b.key), "is %v ms, longer than the %v a profile may run: it would bound nothing", v, bench.MaxSpan)
			}
		}
	}
	if s == (bench.SLO{}) {
		d.fail("slo", "bounds nothing: give ttft_ms, tpot_ms or e2el_ms")
		return nil
	}
	return &s
}

// withSLO gives every profile without an SLO of its own the study's.
func withSLO(ps []bench.Profile, s *bench.SLO) []bench.Profile {
	if s == nil {
		return ps
	}
	out := make([]bench.Profile, len(ps))
	for i, p := range ps {
		if p.SLO == nil {
			slo := *s
			p.SLO = &slo
		}
		out[i] = p
	}
	return out
}

// metricNeed says what a profile must declare for a metric to be defined
// on it ("" when nothing): a metric no trial can produce would make every
// trial fail, or miss its SLO, and waste the study. A stage's metric
// (stageK_…, stages counted from 0) needs the stage, and what its base
// metric needs.
func metricNeed(metric string, p bench.Profile, s *Space) string {
	if why := p.MetricProblem(metric); why != "" {
		return why
	}
	if why := costNeed(metric, s); why != "" {
		return why
	}
	// What it needs is the metric table's (a stage's or a per-GPU figure's
	// is its base metric's).
	row, _ := bench.MetricOf(metric)
	switch row.Needs {
	case bench.NeedQuality:
		switch {
		case !p.Quality():
			return "scores replies: only a profile with kind = \"quality\" measures it"
		case s.Target.Runner == "sim":
			return "scores replies, and the simulator generates none: use runner = \"process\""
		case metric == bench.BaselineAgreement && s.Baseline == nil:
			return "compares replies with the baseline's, but the space has no [baseline]"
		}
	case bench.NeedSLO:
		if p.SLO == nil {
			return "counts requests within SLO thresholds: declare them in [slo] (or the profile's slo = {...})"
		}
	case bench.NeedSearchRate, bench.NeedTrafficRPS:
		if p.SearchRate == nil {
			return "is measured only by a profile with search_rate = { attainment = ..., low = ..., high = ... }"
		}
	}
	return ""
}

// definedMetrics refuses objectives and constraints on metrics their
// profile cannot produce, rate searches without an SLO, and guards
// without a baseline to compare with.
func (d *decoder) definedMetrics(s *Space) {
	byName := map[string]bench.Profile{}
	for _, p := range s.Profiles {
		byName[p.Name] = p
		if p.SearchRate != nil && p.SLO == nil {
			d.fail("profiles.run", "profile %q has search_rate but no SLO: declare [slo] or its slo = {...}", p.Name)
		}
	}
	for i, o := range s.Objectives {
		p := byName[s.ObjectiveProfile(o.Profile)]
		if why := metricNeed(o.Metric, p, s); why != "" {
			d.fail(fmt.Sprintf("objectives[%d].metric", i), "%s on profile %q %s", o.Metric, p.Name, why)
		}
	}
	for i, c := range s.Constraints {
		if c.Relative && s.Baseline == nil {
			d.fail(fmt.Sprintf("constraints[%d].expr", i), "%q compares with the baseline, but the space has no [baseline]", c.Src)
		}
		p := byName[s.ObjectiveProfile(c.Profile)]
		if why := metricNeed(c.Metric, p, s); why != "" {
			d.fail(fmt.Sprintf("constraints[%d].expr", i), "%s on profile %q %s", c.Metric, p.Name, why)
		}
	}
}
