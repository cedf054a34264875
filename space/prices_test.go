package space

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testPrices = `[[gpu]]
name = "H100"
usd_per_gpu_hour = 2.5
source = "test"

[[gpu]]
name = "H200"
usd_per_gpu_hour = 3.2
source = "test"
`

// fleetSpace is a simulated study over GPU types that minimises the cost
// per output token under a TTFT bound; head goes into [target].
func fleetSpace(head, gpus, objective string) string {
	return `[study]
name = "x"
[target]
model = "m"
gpu = "H100"
engine = "vllm"
` + head + `
[[objectives]]
metric = "` + objective + `"
direction = "minimize"
[[constraints]]
expr = "p99_ttft_ms <= 2000"
[params.gpu]
values = ` + gpus + `
[params.max_running]
values = [8, 16]
`
}

func writePrices(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "prices.toml"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The price file is read relative to the space file and kept with the
// target; the gpu knob picks the GPU type a config runs on.
func TestPricesAndGPUKnob(t *testing.T) {
	dir := writePrices(t, testPrices)
	src := fleetSpace(`prices = "prices.toml"`, `["H100", "H200"]`, "usd_per_mtok_output")
	sp, err := Parse(context.Background(), filepath.Join(dir, "s.toml"), src, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sp.Target.Prices != filepath.Join(dir, "prices.toml") || sp.Target.PriceList == nil || len(sp.Target.PriceList.GPUs) != 2 {
		t.Fatalf("prices %q %+v", sp.Target.Prices, sp.Target.PriceList)
	}
	if g := sp.Target.GPUOf(Config{"gpu": "H200"}); g != "H200" {
		t.Errorf("GPUOf(gpu=H200) = %q", g)
	}
	if g := sp.Target.GPUOf(Config{"gpu": Default}); g != "H100" {
		t.Errorf("GPUOf(gpu=default) = %q, want the target's", g)
	}
}

// Each way a cost study can be wrong is refused at load, at its key.
func TestCostSpaceProblems(t *testing.T) {
	good := writePrices(t, testPrices)
	bad := writePrices(t, "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hour = -2.0\nsource = \"x\"\n")
	withPrices := `prices = "prices.toml"`
	cases := []struct {
		name, dir, src, want string
	}{
		{"cost without prices", good, fleetSpace("", `["H100"]`, "usd_per_mtok_output"),
			`s.toml:9: objectives[0].metric: usd_per_mtok_output on profile "balanced" is a cost metric and needs prices: give [target] prices = "prices.toml"`},
		{"cost constraint without prices", good, strings.Replace(fleetSpace("", `["H100"]`, "p99_ttft_ms"), `"p99_ttft_ms <= 2000"`, `"usd_per_hour <= 40"`, 1),
			`constraints[0].expr: usd_per_hour on profile "balanced" is a cost metric and needs prices`},
		{"a stage's cost", good, fleetSpace(withPrices, `["H100"]`, "stage0_usd_per_hour"), "names stage 0, but the profile has no stages"},
		{"bad price file", bad, fleetSpace(withPrices, `["H100"]`, "usd_per_mtok_output"),
			"s.toml:7: target.prices: " + filepath.Join(bad, "prices.toml") + ":3: gpu[0].usd_per_gpu_hour: must be a finite price > 0"},
		{"missing price file", t.TempDir(), fleetSpace(withPrices, `["H100"]`, "usd_per_mtok_output"), "target.prices: price file: open"},
		{"empty prices", good, fleetSpace(`prices = " "`, `["H100"]`, "total_tps"), "target.prices: is empty"},
		{"no card", good, fleetSpace(withPrices, `["H100", "H10"]`, "usd_per_mtok_output"),
			`s.toml:14: params.gpu.values: the simulator has no GPU card "H10"`},
		{"unpriced with a hint", good, fleetSpace(withPrices, `["H100", "H10"]`, "usd_per_mtok_output"),
			`GPU type "H10" has no price in ` + filepath.Join(good, "prices.toml") + `; did you mean "H100"? (priced: H100, H200)`},
		{"unpriced type", writePrices(t, "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hour = 2.0\nsource = \"x\"\n"), fleetSpace(withPrices, `["H100", "H200"]`, "usd_per_mtok_output"),
			`params.gpu.values: GPU type "H200" has no price in`},
		{"target gpu unpriced", writePrices(t, "[[gpu]]\nname = \"H200\"\nusd_per_gpu_hour = 2.0\nsource = \"x\"\n"),
			strings.Replace(fleetSpace(withPrices, `["H200"]`, "usd_per_hour"), "[params.gpu]\nvalues = [\"H200\"]\n", "", 1),
			`s.toml:5: target.gpu: GPU type "H100" has no price in`},
		{"gpu knob on a real runner", good, fleetSpace(withPrices+"\nrunner = \"process\"", `["H100", "H200"]`, "usd_per_mtok_output"),
			`params.gpu.values: a searched GPU type needs runner = "sim", or the types you do not own in [target] simulated_gpus`},
		{"replicas without a rate", good, fleetSpace(withPrices, `["H100"]`, "replicas"),
			`objectives[0].metric: replicas on profile "balanced" counts the replicas that serve a target rate: give [target] traffic_rps`},
		{"replicas without a rate search", good, fleetSpace(withPrices+"\ntraffic_rps = 20", `["H100"]`, "gpus_total"),
			`gpus_total on profile "balanced" is measured only by a profile with search_rate`},
		{"no traffic", good, fleetSpace("traffic_rps = 0", `["H100"]`, "total_tps"), "target.traffic_rps: must be a request rate above 0"},
		{"too much traffic", good, fleetSpace("traffic_rps = 1e9", `["H100"]`, "total_tps"), "target.traffic_rps: must be a request rate above 0 and at most 1e+07"},
		{"gpu knob of numbers", good, strings.Replace(fleetSpace("", `[1, 2]`, "total_tps"), "values = [1, 2]", "low = 1\nhigh = 2", 1),
			"params.gpu: must list GPU types"},
	}
	for _, c := range cases {
		_, err := Parse(context.Background(), filepath.Join(c.dir, "s.toml"), c.src, testOptions())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// routed is a real runner's fleet space that owns H100 and simulates the
// types simulated names (a TOML array) over the gpu knob's values gpus.
func routed(simulated, gpus string) string {
	return fleetSpace("runner = \"process\"\nsimulated_gpus = "+simulated, gpus, "p99_ttft_ms")
}

// A real runner's study may search the GPU type when the types it does
// not own are simulated; every value runs somewhere, decided by
// RunnerOf.
func TestSimulatedGPUsRouteTheirTrials(t *testing.T) {
	sp, err := Parse(context.Background(), filepath.Join(t.TempDir(), "s.toml"), routed(`["H200"]`, `["H100", "H200"]`), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{"gpu": "H100"}, "process"},
		{Config{"gpu": "H200"}, "sim"},
		{Config{"gpu": Default}, "process"},
		{Config{}, "process"},
	} {
		if got := sp.Target.RunnerOf(c.cfg); got != c.want {
			t.Errorf("RunnerOf(%v) = %q, want %q", c.cfg, got, c.want)
		}
	}
	sim := sp.Target
	sim.Runner = "sim"
	if got := sim.RunnerOf(Config{"gpu": "H100"}); got != "sim" {
		t.Errorf("a simulated target's RunnerOf = %q, want sim", got)
	}
}

// Each way simulated_gpus can be wrong is refused at load, at its key.
func TestSimulatedGPUsProblems(t *testing.T) {
	onlyH100 := writePrices(t, "[[gpu]]\nname = \"H100\"\nusd_per_gpu_hour = 2.0\nsource = \"x\"\n")
	cases := []struct {
		name, dir, src, want string
	}{
		{"a type nobody runs", t.TempDir(), routed(`["H200"]`, `["H100", "H200", "L40S"]`),
			`s.toml:15: params.gpu.values: GPU type "L40S" is neither target.gpu ("H100", measured) nor in target.simulated_gpus: list it there to simulate it`},
		{"a typo in the knob", t.TempDir(), routed(`["H200"]`, `["H100", "H20"]`),
			`GPU type "H20" is neither target.gpu ("H100", measured) nor in target.simulated_gpus: list it there to simulate it; did you mean "H200"?`},
		{"a typo", t.TempDir(), routed(`["H20"]`, `["H100", "H200"]`),
			`s.toml:8: target.simulated_gpus: "H20" is not a value of params.gpu; did you mean "H200"? (values: H100, H200)`},
		{"the owned type", t.TempDir(), routed(`["H100", "H200"]`, `["H100", "H200"]`),
			`target.simulated_gpus: lists "H100", which is target.gpu: the type you own is measured, not simulated`},
		{"on the simulator already", t.TempDir(), fleetSpace(`simulated_gpus = ["H200"]`, `["H100", "H200"]`, "p99_ttft_ms"),
			`target.simulated_gpus: every trial is simulated already with runner = "sim"`},
		{"no gpu knob", t.TempDir(), strings.Replace(routed(`["H200"]`, `["H100"]`), "[params.gpu]\nvalues = [\"H100\"]\n", "", 1),
			`target.simulated_gpus: names gpu knob values, but the space searches no GPU type: add [params.gpu] values = ["H100", "H200"]`},
		{"no owned type", t.TempDir(), strings.Replace(routed(`["H200"]`, `["H200"]`), "gpu = \"H100\"\n", "", 1),
			`target.gpu: is required with simulated_gpus`},
		{"no card", t.TempDir(), routed(`["B200"]`, `["H100", "B200"]`),
			`s.toml:15: params.gpu.values: the simulator has no GPU card "B200"`},
		{"no model card", t.TempDir(), strings.Replace(routed(`["H200"]`, `["H100", "H200"]`), `model = "m"`, `model = "mystery"`, 1),
			`target.model: the simulator has no model card "mystery" (the simulated GPU types need it)`},
		{"no price", onlyH100, fleetSpace("prices = \"prices.toml\"\nrunner = \"process\"\nsimulated_gpus = [\"H200\"]", `["H100", "H200"]`, "usd_per_mtok_output"),
			`params.gpu.values: GPU type "H200" has no price in`},
		{"not a list", t.TempDir(), routed(`"H200"`, `["H100", "H200"]`),
			`target.simulated_gpus: must be an array of strings, got string`},
		{"a searched type without it", t.TempDir(), fleetSpace(`runner = "process"`, `["H100", "H200"]`, "p99_ttft_ms"),
			`params.gpu.values: a searched GPU type needs runner = "sim", or the types you do not own in [target] simulated_gpus`},
	}
	for _, c := range cases {
		_, err := Parse(context.Background(), filepath.Join(c.dir, "s.toml"), c.src, testOptions())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}
