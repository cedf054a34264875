package studies

import (
	"fmt"
	"math"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Saturation is an objective that cannot separate configs: most complete
// trials reach the load the profile offers, so the configs that serve
// it all tie on a number the workload fixed (issue 50: goodput equalled
// the offered 6.9 req/s on 20 of 24 trials and nothing said so).
type Saturation struct {
	Metric  string `json:"metric"`
	Profile string `json:"profile"`
	// Offered is the load the profile sends, in the metric's unit; Reached
	// of Complete trials served all of it (servedAll).
	Offered  float64 `json:"offered"`
	Unit     string  `json:"unit"`
	Reached  int     `json:"reached"`
	Complete int     `json:"complete"`
	// Advice is the change that lets the objective separate configs.
	Advice string `json:"advice"`
}

// Thresholds: a trial that served 99% of its requests (within the SLO,
// for goodput) served the offered load, as did one whose value reaches
// 95% of it where the counts are absent (a Poisson schedule's last
// arrivals and the drain make 100% unreachable); the objective is
// saturated when at least 80% of at least minSaturationTrials complete
// trials did.
const (
	saturatedShare      = 0.95
	servedShare         = 0.99
	saturatedTrials     = 0.8
	minSaturationTrials = 5
)

// saturations lists the maximised objectives the offered load caps.
func saturations(sp *space.Space, trials []store.Trial) []Saturation {
	var out []Saturation
	for _, o := range sp.Objectives {
		if o.Direction != space.Maximize {
			continue
		}
		name := sp.ObjectiveProfile(o.Profile)
		p, ok := profileOf(sp, name)
		if !ok {
			continue
		}
		offered, unit, ok := offeredLoad(p, o.Metric)
		if !ok {
			continue
		}
		s := Saturation{Metric: o.Metric, Profile: name, Offered: offered, Unit: unit}
		for _, t := range trials {
			if t.State != store.Complete {
				continue
			}
			s.Complete++
			if servedAll(t, name, o.Metric, offered) {
				s.Reached++
			}
		}
		if s.Complete >= minSaturationTrials && float64(s.Reached) >= saturatedTrials*float64(s.Complete) {
			s.Advice = saturationAdvice(p)
			out = append(out, s)
		}
	}
	return out
}

// servedAll says whether the trial served the whole offered load, so
// that the load, not the config, set its value: every request within the
// SLO (goodput) or none failed (request rate) — the value then differs
// between configs only by how fast the last replies drain — or, where
// those counts are absent, a value of at least saturatedShare of the
// offered load.
func servedAll(t store.Trial, profile, name string, offered float64) bool {
	prefix := name[:len(name)-len(bench.BaseMetric(name))]
	switch bench.BaseMetric(name) {
	case bench.MetricGoodput:
		if a := metric(t, profile, prefix+bench.MetricSLOAttainment); !math.IsNaN(a) {
			return a >= servedShare
		}
	case bench.MetricRequestTPS:
		f, c := metric(t, profile, prefix+bench.MetricFailed), metric(t, profile, prefix+bench.MetricCompleted)
		if !math.IsNaN(f) && !math.IsNaN(c) {
			return c > 0 && f <= (1-servedShare)*(c+f)
		}
	}
	v := metric(t, profile, name)
	return !math.IsNaN(v) && v >= saturatedShare*offered
}

func profileOf(sp *space.Space, name string) (bench.Profile, bool) {
	for _, p := range sp.Profiles {
		if p.Name == name {
			return p, true
		}
	}
	return bench.Profile{}, false
}

// offeredLoad is what the profile offers in the metric's unit: its
// request rate for goodput_rps and request_tps (a stage's rate for the
// stage's), false for a metric the load does not cap or a load without a
// rate (all at once, a rate search).
func offeredLoad(p bench.Profile, metric string) (float64, string, bool) {
	if p.SearchRate != nil {
		return 0, "", false
	}
	k, base := stageOf(metric)
	if base != bench.MetricGoodput && base != bench.MetricRequestTPS {
		return 0, "", false
	}
	switch {
	case k >= 0 && k < len(p.Stages):
		return p.Stages[k].Rate, "req/s", true
	case k >= 0:
		return 0, "", false
	case len(p.Stages) > 0:
		span := p.ArrivalSpan().Seconds()
		return float64(p.Count()) / span, "req/s", span > 0
	case p.Unlimited():
		return 0, "", false
	}
	return p.RequestRate, "req/s", true
}

// stageOf splits "stage1_goodput_rps" into 1 and "goodput_rps" (-1 without
// a stage).
func stageOf(metric string) (int, string) {
	base := bench.BaseMetric(metric)
	if base == metric {
		return -1, metric
	}
	var k int
	if _, err := fmt.Sscanf(metric, "stage%d_", &k); err != nil {
		return -1, metric
	}
	return k, base
}

func saturationAdvice(p bench.Profile) string {
	if len(p.Stages) > 0 {
		return "raise the stages' rates above what the best configs serve, or measure each config's capacity with a profile that has search_rate (objective max_rate_under_slo)"
	}
	return "raise request_rate above what the best configs serve, or measure each config's capacity with search_rate (objective max_rate_under_slo)"
}

// String is the warning a reader sees.
func (s Saturation) String() string {
	return fmt.Sprintf("%s on %s cannot separate configs: %d of %d complete trials served all of the %s %s the profile offers, so the load, not the config, set their value; %s",
		s.Metric, s.Profile, s.Reached, s.Complete, trimFloat(s.Offered), s.Unit, s.Advice)
}

func trimFloat(x float64) string { return fmt.Sprintf("%.3g", x) }
