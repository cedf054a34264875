package space

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const minimalHead = `[study]
name = "x"
[target]
model = "m"
gpu = "H100"
engine = "vllm"
`

const minimalTail = `
[[objectives]]
metric = "total_tps"
direction = "maximize"
[params.max_running]
values = [8, 16]
`

func TestTargetTimeoutsAndFailureFraction(t *testing.T) {
	cases := []struct {
		extra   string
		stall   time.Duration
		trial   time.Duration
		maxFail float64
	}{
		{"", DefaultStallTimeout, 0, DefaultMaxFailedFraction},
		{"stall_timeout = \"30s\"\ntrial_timeout = \"2h\"\nmax_failed_fraction = 0", 30 * time.Second, 2 * time.Hour, 0},
		{"max_failed_fraction = 0.5", DefaultStallTimeout, 0, 0.5},
	}
	for _, c := range cases {
		sp, err := Parse(context.Background(), "x.toml", minimalHead+c.extra+minimalTail, testOptions())
		if err != nil {
			t.Fatalf("%q: %v", c.extra, err)
		}
		tg := sp.Target
		if tg.StallTimeout != c.stall || tg.TrialTimeout != c.trial || tg.MaxFailedFraction != c.maxFail {
			t.Errorf("%q: stall %v trial %v max_failed %v, want %v %v %v", c.extra, tg.StallTimeout, tg.TrialTimeout, tg.MaxFailedFraction, c.stall, c.trial, c.maxFail)
		}
	}
}

func TestSamplerHookGetsNameAndObjectives(t *testing.T) {
	var gotName string
	var gotN int
	opt := testOptions()
	opt.Sampler = func(name string, n int) error {
		gotName, gotN = name, n
		return errors.New("not for this study")
	}
	src := strings.Replace(minimalHead, `name = "x"`, "name = \"x\"\nsampler = \"cmaes\"", 1) + minimalTail +
		"[[objectives]]\nmetric = \"mean_tpot_ms\"\ndirection = \"minimize\"\n"
	_, err := Parse(context.Background(), "x.toml", src, opt)
	if gotName != "cmaes" || gotN != 2 {
		t.Errorf("hook called with (%q, %d), want (cmaes, 2)", gotName, gotN)
	}
	if err == nil || !strings.Contains(err.Error(), "x.toml:3: study.sampler: not for this study") {
		t.Errorf("Parse = %v, want the hook's error on study.sampler with its line", err)
	}
}

func TestCheckTargetProblemsDoNotHideTheRest(t *testing.T) {
	src := strings.Replace(minimalHead, `gpu = "H100"`, `gpu = "H900"`, 1) + minimalTail + "[baseline]\nmax_running = 4\n"
	_, err := Parse(context.Background(), "x.toml", src, testOptions())
	for _, want := range []string{`x.toml:5: target.gpu: the simulator has no GPU card "H900"`, "baseline.max_running: 4 is not one of the knob's values [8, 16]"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse = %v, want %q", err, want)
		}
	}
}

func TestCustomProfileCheckedByBench(t *testing.T) {
	src := minimalHead + minimalTail + `[profiles]
run = ["p"]
[profiles.custom.p]
input_len = 128
output_len = 16
num_prompts = 10
range_ratio = 1.5
endpoint = "grpc"
`
	_, err := Parse(context.Background(), "x.toml", src, testOptions())
	for _, want := range []string{"x.toml:19: profiles.custom.p.range_ratio: must be in [0, 1), not 1.5", "x.toml:20: profiles.custom.p.endpoint: must be completions or chat"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse = %v, want %q", err, want)
		}
	}
	ok := strings.Replace(strings.Replace(src, "range_ratio = 1.5", "range_ratio = 0.5", 1), `"grpc"`, `"chat"`, 1) + "request_rate = inf\n"
	if _, err := Parse(context.Background(), "x.toml", ok, testOptions()); err != nil {
		t.Errorf("a valid custom profile (request_rate = inf) was refused: %v", err)
	}
}

func TestTargetNodes(t *testing.T) {
	extra := "host = \"0.0.0.0\"\nnodes = [\"gpu[01-02]\", \"gpu07\"]\nnode_launch = [\"srun\", \"--nodes=1\", \"-w\", \"{host}\"]\ngpus_per_node = 4\n"
	sp, err := Parse(context.Background(), "x.toml", minimalHead+extra+minimalTail, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	tg := sp.Target
	if strings.Join(tg.Nodes, " ") != "gpu01 gpu02 gpu07" || strings.Join(tg.NodeLaunch, " ") != "srun --nodes=1 -w {host}" || tg.NodeGPUs() != 4 {
		t.Errorf("nodes %q, node_launch %q, gpus per node %d", tg.Nodes, tg.NodeLaunch, tg.NodeGPUs())
	}
	sp, err = Parse(context.Background(), "x.toml", minimalHead+minimalTail, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sp.Target.Nodes != nil || sp.Target.GPUsPerNode != 0 || sp.Target.NodeGPUs() != DefaultGPUsPerNode {
		t.Errorf("defaults: nodes %q, gpus_per_node %d (NodeGPUs %d)", sp.Target.Nodes, sp.Target.GPUsPerNode, sp.Target.NodeGPUs())
	}
}
