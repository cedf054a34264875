package studies

import (
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// An objective the offered load caps on most trials is flagged with the
// change that lets it separate configs; one that still spreads is not.
func TestSaturatedObjectives(t *testing.T) {
	staged := bench.Profile{Name: "burst", Stages: []bench.Stage{{Rate: 4, Duration: 30 * time.Second}, {Rate: 10, Duration: 30 * time.Second}}}
	steady := bench.Profile{Name: "steady", NumPrompts: 100, RequestRate: 5}
	allAtOnce := bench.Profile{Name: "burst", NumPrompts: 100, RequestRate: 0}
	trials := func(profile, metric string, vs ...float64) []store.Trial {
		var out []store.Trial
		for i, v := range vs {
			out = append(out, store.Trial{Number: i + 1, State: store.Complete, Metrics: map[string]map[string]float64{profile: {metric: v}}})
		}
		out = append(out, store.Trial{Number: len(vs) + 1, State: store.Failed})
		return out
	}
	for _, tc := range []struct {
		name    string
		p       bench.Profile
		metric  string
		dir     space.Direction
		trials  []store.Trial
		want    string // "" for no warning
		advises string
	}{
		// 7 req/s offered over both stages; 5 of 6 trials serve it all.
		{"stages", staged, "goodput_rps", space.Maximize, trials("burst", "goodput_rps", 6.9, 6.85, 6.93, 6.9, 6.7, 3), "5 of 6 complete trials served all of the 7 req/s", "raise the stages' rates"},
		{"one stage", staged, "stage1_goodput_rps", space.Maximize, trials("burst", "stage1_goodput_rps", 9.9, 9.8, 9.7, 9.9, 9.6), "5 of 5 complete trials served all of the 10 req/s", "search_rate"},
		{"steady rate", steady, "request_tps", space.Maximize, trials("steady", "request_tps", 5, 5, 5, 4.9, 2), "4 of 5", "raise request_rate"},
		{"configs still spread", steady, "request_tps", space.Maximize, trials("steady", "request_tps", 5, 5, 4, 3, 2, 1), "", ""},
		{"too few trials", steady, "request_tps", space.Maximize, trials("steady", "request_tps", 5, 5, 5, 5), "", ""},
		{"all at once caps nothing", allAtOnce, "request_tps", space.Maximize, trials("burst", "request_tps", 50, 50, 50, 50, 50), "", ""},
		{"latency is not capped by the load", steady, "p99_ttft_ms", space.Minimize, trials("steady", "p99_ttft_ms", 5, 5, 5, 5, 5), "", ""},
		// Served every request within the SLO, though the drain keeps the
		// value at 91% of the offered rate: the load decided it.
		{"attainment", staged, "goodput_rps", space.Maximize, withAttainment(trials("burst", "goodput_rps", 6.36, 6.27, 6.08, 6.05, 1.8), 1, 1, 1, 1, 0.4), "4 of 5", "search_rate"},
		{"attainment spread", staged, "goodput_rps", space.Maximize, withAttainment(trials("burst", "goodput_rps", 6.9, 6.9, 6.9, 6.9, 6.9), 1, 1, 1, 0.9, 0.4), "", ""},
		{"a stage the profile lacks", staged, "stage2_goodput_rps", space.Maximize, trials("burst", "stage2_goodput_rps", 9, 9, 9, 9, 9), "", ""},
	} {
		sp := &space.Space{Objectives: []space.Objective{{Metric: tc.metric, Direction: tc.dir}}, Profiles: []bench.Profile{tc.p}}
		got := saturations(sp, tc.trials)
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%s: warned %v", tc.name, got)
			}
			continue
		}
		if len(got) != 1 || !strings.Contains(got[0].String(), tc.want) || !strings.Contains(got[0].String(), tc.advises) {
			t.Errorf("%s: %v, want one warning with %q and %q", tc.name, got, tc.want, tc.advises)
		}
	}
}

// withAttainment sets each complete trial's slo_attainment on burst.
func withAttainment(ts []store.Trial, as ...float64) []store.Trial {
	for i, a := range as {
		ts[i].Metrics["burst"]["slo_attainment"] = a
	}
	return ts
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		metric string
		v      float64
		want   string
	}{
		{"mean_e2e_ms", 511438, "8.5 min"},
		{"p99_ttft_ms", 53380, "53.4 s"},
		{"p99_ttft_ms", 9999, ""},
		{"total_tps", 53380, ""},
		{"stage1_p99_ttft_ms", 12000, "12.0 s"},
	} {
		got, ok := FormatDuration(tc.metric, tc.v)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("FormatDuration(%s, %v) = %q, %v; want %q", tc.metric, tc.v, got, ok, tc.want)
		}
	}
}
