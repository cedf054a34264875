package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/cost"
)

// examples/fleet.toml end to end, in a few trials: the simulator runs each
// trial on the GPU type its gpu knob names, the price file prices it, the
// recommendation minimises usd_per_mtok_output under the TTFT SLO and
// names the GPU type the command cannot say.
func TestFleetExampleCostsAndNamesTheGPUType(t *testing.T) {
	example, err := filepath.Abs("../../examples/fleet.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errText := runCLI(t, dir, "run", "--n-trials", "12", example)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errText)
	}
	rec := regexp.MustCompile(`(?m)^  min usd_per_mtok_output under the SLO: trial (\d+) .*\n    On (\d+) × (\S+) \(the gpu knob.*\n    Priced at (\S+): \$[0-9.]+/GPU-hour \(example number for the docs, not a quote; \S*prices.toml:\d+\)\.`).FindStringSubmatch(out)
	if rec == nil {
		t.Fatalf("no recommendation naming a GPU type and citing its price:\n%s", out)
	}
	if rec[4] != rec[3] {
		t.Errorf("recommended on %s, priced as %s", rec[3], rec[4])
	}
	trials := shownTrials(t, dir, "fleet")
	prices, err := cost.Load(filepath.Join(filepath.Dir(example), "prices.toml"))
	if err != nil {
		t.Fatal(err)
	}
	types, found := map[string]bool{}, false
	for _, tr := range trials {
		if tr.State != "complete" {
			continue
		}
		m := tr.Metrics["chat"]
		for _, k := range []string{bench.MetricUSDPerHour, bench.MetricUSDPerMTokOutput, bench.MetricUSDPerMTokTotal} {
			if !(m[k] > 0) {
				t.Errorf("trial %d: %s = %v", tr.Number, k, m[k])
			}
		}
		gpu, _ := tr.Config["gpu"].(string)
		types[gpu] = true
		p, ok := prices.Lookup(gpu)
		if !ok {
			t.Fatalf("trial %d ran on %q, which the example does not price", tr.Number, gpu)
		}
		if want := p.USDPerGPUHour * gpusOf(tr.Config); math.Abs(m[bench.MetricUSDPerHour]-want) > 1e-9 {
			t.Errorf("trial %d on %v: usd_per_hour %v, want %v", tr.Number, tr.Config["gpu"], m[bench.MetricUSDPerHour], want)
		}
		found = found || rec[1] == strconv.Itoa(tr.Number)
		if rec[1] == strconv.Itoa(tr.Number) && (rec[3] != gpu || rec[2] != strconv.Itoa(int(gpusOf(tr.Config)))) {
			t.Errorf("the recommendation says %s, its trial ran on %v", rec[3], tr.Config["gpu"])
		}
	}
	if !found {
		t.Errorf("recommended trial %s is not a complete trial", rec[1])
	}
	if len(types) < 2 {
		t.Errorf("the complete trials ran on %v: the study searched no GPU type", types)
	}
}

func gpusOf(c map[string]any) float64 {
	tp, _ := c["tp"].(float64)
	return max(tp, 1)
}

// examples/fleet-traffic.toml end to end: each complete trial's rate
// search gives the replicas serving 40 req/s, and usd_per_hour is theirs.
func TestFleetTrafficExampleCountsReplicas(t *testing.T) {
	example, err := filepath.Abs("../../examples/fleet-traffic.toml")
	if err != nil {
		t.Fatal(err)
	}
	prices, err := cost.Load(filepath.Join(filepath.Dir(example), "prices.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, out, errText := runCLI(t, dir, "run", "--n-trials", "8", example); code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errText)
	}
	trials := shownTrials(t, dir, "fleet-traffic")
	counted := 0
	for _, tr := range trials {
		m := tr.Metrics["chat"]
		rate, ok := m["max_rate_under_slo"]
		if tr.State != "complete" || !ok || !(rate > 0) {
			continue
		}
		counted++
		gpu, _ := tr.Config["gpu"].(string)
		p, _ := prices.Lookup(gpu)
		replicas := math.Ceil(40 / rate)
		if m[bench.MetricReplicas] != replicas || m[bench.MetricGPUsTotal] != replicas*gpusOf(tr.Config) {
			t.Errorf("trial %d: max rate %v: replicas %v gpus_total %v, want %v and %v", tr.Number, rate,
				m[bench.MetricReplicas], m[bench.MetricGPUsTotal], replicas, replicas*gpusOf(tr.Config))
		}
		if want := m[bench.MetricGPUsTotal] * p.USDPerGPUHour; math.Abs(m[bench.MetricUSDPerHour]-want) > 1e-9 {
			t.Errorf("trial %d: usd_per_hour %v, want the fleet's %v", tr.Number, m[bench.MetricUSDPerHour], want)
		}
	}
	if counted == 0 {
		t.Error("no trial sustained any rate within the SLO")
	}
}

// shownTrial is what the fleet tests read of `show --json`.
type shownTrial struct {
	Number  int                           `json:"number"`
	State   string                        `json:"state"`
	Config  map[string]any                `json:"config"`
	Metrics map[string]map[string]float64 `json:"metrics"`
}

// shownTrials is a study's trials as `show --json` prints them.
func shownTrials(t *testing.T, dir, study string) []shownTrial {
	t.Helper()
	code, js, errText := runCLI(t, dir, "show", "--json", study)
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, errText)
	}
	var trials []shownTrial
	if err := json.Unmarshal([]byte(js), &trials); err != nil {
		t.Fatal(err)
	}
	return trials
}
