package studies

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/internal/suggest"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// SortKey resolves a sort key typed by a user (`show --sort`): "metric",
// on the first objective's profile, or "profile/metric". The profile must
// be one the study runs and the metric one the study measured there or
// one the benchmark produces; anything else is an error naming the
// nearest key, so a typo is never silently an unsorted listing. dir is
// the metric's objective direction, else Maximize.
func SortKey(sp *space.Space, trials []store.Trial, key string) (profile, metric string, dir space.Direction, err error) {
	profile, metric, ok := strings.Cut(key, "/")
	if !ok {
		profile, metric = sp.ObjectiveProfile(""), key
	}
	var profiles []string
	for _, p := range sp.Profiles {
		profiles = append(profiles, p.Name)
	}
	if ok && !slices.Contains(profiles, profile) {
		return "", "", "", fmt.Errorf("--sort %s: the study runs no profile %q%s (profiles: %s)", key, profile, suggest.Hint(profile, profiles), strings.Join(profiles, ", "))
	}
	measured := measuredMetrics(trials, profile)
	if !slices.Contains(measured, metric) && !bench.KnownMetric(metric) {
		return "", "", "", fmt.Errorf("--sort %s: no metric %q%s (measured: %s)", key, metric, suggest.Hint(metric, measured), strings.Join(measured, ", "))
	}
	dir = space.Maximize
	for _, o := range sp.Objectives {
		if o.Metric == metric {
			dir = o.Direction
		}
	}
	return profile, metric, dir, nil
}

// measuredMetrics lists, sorted, the metrics any trial has on profile.
func measuredMetrics(trials []store.Trial, profile string) []string {
	seen := map[string]bool{}
	for _, t := range trials {
		for m := range t.Metrics[profile] {
			seen[m] = true
		}
	}
	out := make([]string, 0, len(seen))
	for m := range seen {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
