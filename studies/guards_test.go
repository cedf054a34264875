package studies

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// guardFixture optimises balanced and guards sharegpt against the
// baseline: trial 2 wins balanced but loses half of sharegpt.
func guardFixture(t *testing.T) (*space.Space, []store.Trial) {
	t.Helper()
	src := `
[study]
name = "guarded"
[target]
model = "m"
engine = "sglang"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[[constraints]]
expr = "total_tps >= 0.95 * baseline"
profile = "sharegpt"
[profiles]
run = ["balanced", "sharegpt"]
[params.max_running]
values = [64, 128, 256]
[baseline]
max_running = 64
`
	sp, err := space.Parse(context.Background(), "guarded.toml", src, space.Options{Metric: bench.KnownMetric, Profile: func(n string) (bench.Profile, bool) { return bench.Profile{Name: n}, true }})
	if err != nil {
		t.Fatal(err)
	}
	m := func(balanced, sharegpt float64) map[string]map[string]float64 {
		return map[string]map[string]float64{"balanced": {"total_tps": balanced}, "sharegpt": {"total_tps": sharegpt}}
	}
	cfg := func(mr int64) space.Config { return space.Config{"engine": "sglang", "max_running": mr} }
	return sp, []store.Trial{
		{Number: 1, State: store.Complete, Origin: "baseline", Config: cfg(64), Metrics: m(5000, 6040.94)},
		{Number: 2, State: store.Complete, Origin: "enqueue", Config: cfg(256), Metrics: m(12600, 2845.48)},
		{Number: 3, State: store.Complete, Origin: "sampler", Config: cfg(128), Metrics: m(9000, 5900)},
	}
}

func TestGuardIsUnknownUntilTheBaselineFinished(t *testing.T) {
	sp, trials := guardFixture(t)
	if v := Violation(sp, trials[1], nil); v != 0 {
		t.Errorf("without a finished baseline the guard is unknown, not violated: violation %v", v)
	}
	if v := Violation(sp, trials[1], Baseline(trials)); v <= 0 {
		t.Errorf("trial 2 loses 53%% on sharegpt: violation %v, want > 0", v)
	}
	if v := Violation(sp, trials[2], Baseline(trials)); v != 0 {
		t.Errorf("trial 3 keeps 97.7%% of sharegpt: violation %v, want 0", v)
	}
	running := append([]store.Trial(nil), trials...)
	running[0].State = store.Running
	if Baseline(running) != nil {
		t.Error("a running baseline is not finished")
	}
}

func TestReportFlagsGuardBreaks(t *testing.T) {
	sp, trials := guardFixture(t)
	r := BuildReport(sp, trials, nil)
	if len(r.Winners) != 1 || r.Winners[0].Trial != 3 {
		t.Errorf("winner %+v, want trial 3: trial 2 breaks the sharegpt guard", r.Winners)
	}
	if len(r.GuardBreaks) != 1 {
		t.Fatalf("guard breaks %+v, want trial 2 on sharegpt", r.GuardBreaks)
	}
	g := r.GuardBreaks[0]
	if g.Trial != 2 || g.Profile != "sharegpt" || g.Value != 2845.48 || g.Baseline != 6040.94 || math.Abs(g.Bound-0.95*6040.94) > 1e-9 {
		t.Errorf("guard break %+v", g)
	}
	var text bytes.Buffer
	if err := r.Text(&text); err != nil {
		t.Fatal(err)
	}
	if want := "  sharegpt:\n    trial 2: total_tps >= 0.95 * baseline: 2845.48 vs 5738.89 (baseline 6040.94)\n"; !strings.Contains(text.String(), want) {
		t.Errorf("text report lacks\n%s\ngot:\n%s", want, text.String())
	}
}

// A study with several profiles has checkpoints on which an objective of
// another profile is undefined: `servetune show --json` writes it as
// null instead of failing on NaN.
func TestTrialsJSONWritesUndefinedCheckpointValuesAsNull(t *testing.T) {
	_, trials := guardFixture(t)
	trials[1].Intermediate = []search.Checkpoint{{Profile: "sharegpt", Step: 1, Values: []float64{math.NaN()}}}
	var out bytes.Buffer
	if err := TrialsJSON(&out, trials); err != nil {
		t.Fatal(err)
	}
	var back []struct {
		Intermediate []struct {
			Values []*float64 `json:"values"`
		} `json:"intermediate"`
	}
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || len(back[1].Intermediate) != 1 || back[1].Intermediate[0].Values[0] != nil {
		t.Errorf("exported checkpoints: %s", out.String())
	}
}

func TestReportShowsLatencySLOs(t *testing.T) {
	src := `
[study]
name = "slo"
[target]
model = "m"
engine = "sglang"
[slo]
ttft_ms = 2000
tpot_ms = 50.5
[[objectives]]
metric = "goodput_rps"
direction = "maximize"
[profiles]
run = ["balanced", "chat"]
[profiles.custom.chat]
input_len = 8
output_len = 8
num_prompts = 4
slo = { e2el_ms = 900 }
[params.max_running]
values = [64, 128]
`
	sp, err := space.Parse(context.Background(), "slo.toml", src, space.Options{Metric: bench.KnownMetric, Profile: func(n string) (bench.Profile, bool) { return bench.Profile{Name: n}, true }})
	if err != nil {
		t.Fatal(err)
	}
	trials := []store.Trial{{Number: 1, State: store.Complete, Origin: "sampler", Config: space.Config{"engine": "sglang", "max_running": int64(64)},
		Metrics: map[string]map[string]float64{"balanced": {"goodput_rps": 3}}}}
	var text bytes.Buffer
	if err := BuildReport(sp, trials, nil).Text(&text); err != nil {
		t.Fatal(err)
	}
	want := "Latency SLO (balanced): ttft <= 2000 ms, tpot <= 50.5 ms\nLatency SLO (chat): e2el <= 900 ms\n"
	if !strings.Contains(text.String(), want) {
		t.Errorf("report lacks\n%s\ngot:\n%s", want, text.String())
	}
}
