package calib

import (
	"math"
	"slices"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// StudyMetrics are fitted on every load profile of a study besides its
// objectives: throughput, decode speed and time to first token see
// different bottlenecks, so together they tell the factors apart.
func StudyMetrics() []string {
	return []string{bench.MetricTotalTPS, bench.MetricMeanTPOTMs, bench.MetricMeanTTFTMs}
}

// MeasuredMetrics are fitted from a measurement (a benchmark result a
// user already has) when it has them: the means every benchmark client
// reports, and throughput.
func MeasuredMetrics() []string {
	return []string{bench.MetricTotalTPS, bench.MetricMeanTTFTMs, bench.MetricMeanTPOTMs, bench.MetricMeanITLMs, bench.MetricMeanE2EMs}
}

// Slot is one measured value a fit compares: trial, profile, metric.
type Slot struct {
	Trial           int
	Profile, Metric string
}

// Slots lists the values a study's fit compares: per trial (measured[i]
// is trial i's metrics by profile), per load profile, StudyMetrics and
// the objectives measured there, where the value is positive and finite.
// Quality profiles are left out: the simulator generates no text.
func Slots(sp *space.Space, measured []map[string]map[string]float64) []Slot {
	var out []Slot
	for i, m := range measured {
		for _, p := range sp.Profiles {
			if p.Quality() {
				continue
			}
			for _, name := range profileMetrics(sp, p.Name) {
				if v, ok := m[p.Name][name]; ok && v > 0 && !math.IsInf(v, 0) {
					out = append(out, Slot{Trial: i, Profile: p.Name, Metric: name})
				}
			}
		}
	}
	return out
}

// profileMetrics are StudyMetrics and the objectives measured on profile.
func profileMetrics(sp *space.Space, profile string) []string {
	out := StudyMetrics()
	for _, o := range sp.Objectives {
		if sp.ObjectiveProfile(o.Profile) == profile && !slices.Contains(out, o.Metric) {
			out = append(out, o.Metric)
		}
	}
	return out
}
