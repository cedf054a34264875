package space

import (
	"context"
	"strings"
	"testing"
)

// An objective or constraint that points its metric the wrong way is
// refused at load with file:line:key and the way that means something;
// the right ways, counts bounded either way and a spread at 0 load.
func TestMetricDirections(t *testing.T) {
	for _, tc := range []struct {
		obj, dir, constraint string
		want                 []string // nil when the space loads
	}{
		{"goodput_rps", "maximize", "p99_ttft_ms <= 4000", nil},
		{"mean_tpot_ms", "minimize", "total_tps >= 0.9 * baseline", nil},
		{"goodput_rps", "maximize", "failed <= 0", nil},
		{"goodput_rps", "maximize", "std_ttft_ms <= 0", nil},
		{"total_tps", "minimize", "p99_ttft_ms <= 4000", []string{"staged.toml:14: objectives[0].direction: total_tps is better higher: \"minimize\" would search for the worst config; use direction = \"maximize\""}},
		{"mean_ttft_ms", "maximize", "p99_ttft_ms <= 4000", []string{"objectives[0].direction: mean_ttft_ms is better lower", `use direction = "minimize"`}},
		{"goodput_rps", "maximize", "p99_ttft_ms >= 0", []string{"staged.toml:17: constraints[0].expr:", "bounds p99_ttft_ms from below, but it is better lower: an SLO caps it (p99_ttft_ms <= N)"}},
		{"goodput_rps", "maximize", "failed > 0", []string{"bounds failed from below"}},
		{"goodput_rps", "maximize", "total_tps <= 1000", []string{"bounds total_tps from above, but it is better higher"}},
		{"goodput_rps", "maximize", "p99_ttft_ms <= 0", []string{"can never hold: p99_ttft_ms is a duration, above 0 for every request"}},
		{"goodput_rps", "maximize", "stage1_mean_e2e_s < 0.0", []string{"can never hold"}},
	} {
		src := strings.Replace(stagedSpace(tc.obj, tc.constraint), `direction = "maximize"`, `direction = "`+tc.dir+`"`, 1)
		src = strings.Replace(src, "[profiles]", "[baseline]\nengine = \"vllm\"\n\n[profiles]", 1)
		_, err := Parse(context.Background(), "staged.toml", src, testOptions())
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s %s / %s: %v", tc.dir, tc.obj, tc.constraint, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s %s / %s loaded, want %q", tc.dir, tc.obj, tc.constraint, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s / %s: error\n%v\nlacks %q", tc.dir, tc.obj, tc.constraint, err, w)
			}
		}
	}
}
