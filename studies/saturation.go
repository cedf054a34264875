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
	// Offered is the load the profile sends, in the metric's unit (req/s
	// or tokens/s); Reached of Complete trials measured at least
	// saturatedShare of it.
	Offered  float64 `json:"offered"`
	Unit     string  `json:"unit"`
	Reached  int     `json:"reached"`
	Complete int     `json:"complete"`
	// Advice is the change that lets the objective separate configs.
	Advice string `json:"advice"`
}

// Thresholds: a trial reaching 95% of the offered load is at it (a
// Poisson schedule's last arrivals and the drain make 100% unreachable);
// the objective is saturated when 80% of at least minSaturationTrials
// complete trials are.
const (
	saturatedShare      = 0.95
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
			if v := metric(t, name, o.Metric); !math.IsNaN(v) && v >= saturatedShare*offered {
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
	if base != "goodput_rps" && base != "request_tps" {
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
	return fmt.Sprintf("%s on %s cannot separate configs: %d of %d complete trials reach at least %.0f%% of the %s %s the profile offers; %s",
		s.Metric, s.Profile, s.Reached, s.Complete, saturatedShare*100, trimFloat(s.Offered), s.Unit, s.Advice)
}

func trimFloat(x float64) string { return fmt.Sprintf("%.3g", x) }
