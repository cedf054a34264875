package studies

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func TestSortKey(t *testing.T) {
	sp := &space.Space{
		Profiles:   []bench.Profile{{Name: "chat"}, {Name: "long"}},
		Objectives: []space.Objective{{Metric: "mean_tpot_ms", Direction: space.Minimize}},
	}
	trials := []store.Trial{{Metrics: map[string]map[string]float64{"chat": {"total_tps": 1, "mean_tpot_ms": 2, "my_custom": 3}}}}
	for _, tc := range []struct {
		key, profile, metric string
		dir                  space.Direction
		err                  string
	}{
		{key: "total_tps", profile: "chat", metric: "total_tps", dir: space.Maximize},
		{key: "long/mean_tpot_ms", profile: "long", metric: "mean_tpot_ms", dir: space.Minimize},
		{key: "p99_ttft_ms", profile: "chat", metric: "p99_ttft_ms", dir: space.Maximize}, // produced, not yet measured
		{key: "my_custom", profile: "chat", metric: "my_custom", dir: space.Maximize},     // measured, not built in
		{key: "totl_tps", err: `no metric "totl_tps"; did you mean "total_tps"?`},
		{key: "foo", err: `no metric "foo" (measured: mean_tpot_ms, my_custom, total_tps)`},
		{key: "chta/total_tps", err: `no profile "chta"; did you mean "chat"?`},
	} {
		p, m, d, err := SortKey(sp, trials, tc.key)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("SortKey(%q) = %v, want an error holding %q", tc.key, err, tc.err)
			}
			continue
		}
		if err != nil || p != tc.profile || m != tc.metric || d != tc.dir {
			t.Errorf("SortKey(%q) = %s %s %s %v, want %s %s %s", tc.key, p, m, d, err, tc.profile, tc.metric, tc.dir)
		}
	}
}
