package space

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// stagedSpace is a study on one two-stage profile with an SLO; obj and
// constraint are spliced in.
func stagedSpace(obj, constraint string) string {
	return `[study]
name = "staged"

[target]
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 1

[slo]
ttft_ms = 2000

[[objectives]]
metric = "` + obj + `"
direction = "maximize"

[[constraints]]
expr = "` + constraint + `"

[profiles]
run = ["burst"]

[profiles.custom.burst]
input_len = 512
output_len = 128
percentiles = [99.9]
stages = [{ rate = 4, duration = "30s" }, { rate = 10, duration = "30s" }]

[params.engine]
values = ["vllm", "sglang"]
`
}

// Every metric an objective or constraint names is checked against what
// its profile produces, at load: a stage the profile lacks (stages count
// from 0), a percentile it does not compute and a typo are refused with
// file:line:key, and a typo gets a did-you-mean with its stage kept.
func TestMetricNamesCheckedAgainstTheProfile(t *testing.T) {
	for _, tc := range []struct {
		obj, constraint string
		want            []string // "" when the space loads
	}{
		{"goodput_rps", "stage1_p99_ttft_ms <= 4000", nil},
		{"stage0_goodput_rps", "stage1_p99.9_e2e_s <= 4", nil},
		{"goodput_rps_per_gpu", "stage1_total_tps_per_gpu >= 100", nil},
		{"max_rate_under_slo_per_gpu", "p99_ttft_ms <= 4000", []string{"max_rate_under_slo_per_gpu on profile \"burst\" is measured only by a profile with search_rate"}},
		{"goodput_rps", "p99_ttft_ms_per_gpu <= 4000", []string{`unknown metric "p99_ttft_ms_per_gpu"`}},
		{"goodput_rps", "stage2_p99_ttft_ms <= 4000", []string{"staged.toml:17: constraints[0].expr:", "names stage 2, but the profile has 2 stages, numbered from 0 (stage0_p99_ttft_ms … stage1_p99_ttft_ms)"}},
		{"goodput_rps", "p99_tfft_ms <= 4000", []string{"constraints[0].expr", `unknown metric "p99_tfft_ms"; did you mean "p99_ttft_ms"?`}},
		{"goodput_rps", "stage1_p99_tfft_ms <= 4000", []string{`did you mean "stage1_p99_ttft_ms"?`}},
		{"goodput_rsp", "p99_ttft_ms <= 4000", []string{"staged.toml:13: objectives[0].metric:", `did you mean "goodput_rps"?`}},
		{"stage5_total_tps", "p99_ttft_ms <= 4000", []string{"objectives[0].metric", "names stage 5, but the profile has 2 stages"}},
		{"goodput_rps", "p97_ttft_ms <= 4000", []string{"is a percentile the profile does not compute: add 97 to its percentiles (it computes 50, 90, 95, 99, 99.9)"}},
		{"goodput_rps", "p099_ttft_ms <= 4000", []string{"is a percentile the profile does not compute"}},
	} {
		_, err := Parse(context.Background(), "staged.toml", stagedSpace(tc.obj, tc.constraint), testOptions())
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s / %s: %v", tc.obj, tc.constraint, err)
			}
			continue
		}
		var le *Error
		if !errors.As(err, &le) {
			t.Errorf("%s / %s: error %v, want a load error", tc.obj, tc.constraint, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s / %s: error\n%v\nlacks %q", tc.obj, tc.constraint, err, w)
			}
		}
	}
}

// A stage prefix on a profile without stages names nothing it produces.
func TestStageMetricOnAProfileWithoutStages(t *testing.T) {
	src := strings.Replace(stagedSpace("total_tps", "stage0_p99_ttft_ms <= 4000"),
		`stages = [{ rate = 4, duration = "30s" }, { rate = 10, duration = "30s" }]`, "num_prompts = 100", 1)
	_, err := Parse(context.Background(), "staged.toml", src, testOptions())
	if err == nil || !strings.Contains(err.Error(), "names stage 0, but the profile has no stages") {
		t.Fatalf("err = %v", err)
	}
}
