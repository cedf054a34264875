package fidelity

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
)

const oneRun = `{"runs": [{"id": "a", "engine": "vllm", "model": "Qwen/Qwen2.5-7B-Instruct", "gpu": "H100", "tp": 1, "dp": 1,
 "precision": "FP16", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "gpu_memory_utilization": null,
 "cpu_kv_offload": null, "max_model_len": 4096, "prefix_caching": true, "chunked_prefill": true,
 "workload": {"system_prompt_len": 100, "question_len": 400, "output_len": 100, "num_unique_system_prompts": 4,
  "num_users_per_system_prompt": 4, "stages": [{"rate": 2, "duration_s": 20}, {"rate": 4, "duration_s": 10}],
  "data_type": "shared_prefix", "enable_multi_turn_chat": true, "ignore_eos": true, "max_model_len": 4096},
 "measured_ms": {"summary": {"e2e_mean": 800, "ttft_mean": 30, "itl_mean": 7.5},
  "stage_0": {"e2e_mean": 790, "ttft_mean": 29, "itl_mean": 7.4}, "stage_1": {"e2e_mean": 820, "ttft_mean": 31, "itl_mean": 7.7}}}]}`

func TestParseNamesTheProblem(t *testing.T) {
	cases := map[string]string{
		strings.Replace(oneRun, `"tp": 1`, `"tp": "one"`, 1):                    "line 1",
		strings.Replace(oneRun, `"gpu": "H100"`, `"gpu": "H100", "gpus": 2`, 1): `line 1: gpus: unknown key; did you mean "gpu"?`,
		strings.Replace(oneRun, `"max_num_seqs"`, `"max_num_seq"`, 1):           `line 2: max_num_seq: unknown key; did you mean "max_num_seqs"?`,
		strings.Replace(oneRun, `"stage_1"`, `"stage_7"`, 1):                    "measured_ms.stage_7",
		strings.Replace(oneRun, `"shared_prefix"`, `"random"`, 1):               "only shared_prefix",
		strings.Replace(oneRun, `"engine": "vllm"`, `"engine": "sglang"`, 1):    `runs[0] (id "a"): engine "sglang"`,
		`{"runs": []}`: "no runs",
		// Latencies that cannot be, and seconds where milliseconds belong.
		strings.Replace(oneRun, `"itl_mean": 7.5`, `"itl_mean": -7.5`, 1):                                                "measured_ms.summary.itl_mean: -7.5 is not a latency",
		strings.Replace(oneRun, `"ttft_mean": 29`, `"ttft_mean": -1`, 1):                                                 "measured_ms.stage_0.ttft_mean: -1 is not a latency",
		strings.Replace(oneRun, `"e2e_mean": 800`, `"e2e_mean": 1e999`, 1):                                               "line 7",
		strings.NewReplacer(`"ttft_mean": 30, "itl_mean": 7.5`, `"ttft_mean": 0.03, "itl_mean": 0.0075`).Replace(oneRun): "measured_ms.summary.ttft_mean: latencies look like seconds",
		// Loads that cannot be planned, and settings no server takes.
		strings.Replace(oneRun, `"num_unique_system_prompts": 4`, `"num_unique_system_prompts": 1000000000000`, 1): "workload.num_unique_system_prompts",
		strings.Replace(oneRun, `"question_len": 400`, `"question_len": -400`, 1):                                  "workload.question_len: -400",
		strings.Replace(oneRun, `"duration_s": 20`, `"duration_s": 3600000000`, 1):                                 "workload.stages: last",
		strings.Replace(oneRun, `"gpu_memory_utilization": null`, `"gpu_memory_utilization": 1.5`, 1):              "gpu_memory_utilization: 1.5",
		strings.Replace(oneRun, `"max_num_seqs": 128`, `"max_num_seqs": -1`, 1):                                    "max_num_seqs: -1",
	}
	for in, want := range cases {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error with %q, got %v", want, err)
		}
	}
	if _, err := Parse([]byte(oneRun)); err != nil {
		t.Fatal(err)
	}
}

// Two runs of one id, and a run whose model or GPU no card knows, are
// refused naming the run and key; the second replayed as nothing and the
// check exited 0 (issue 48, fifth pass).
func TestRunsNamedOnceAndCarded(t *testing.T) {
	run := oneRun[len(`{"runs": [`) : len(oneRun)-2]
	if _, err := Parse([]byte(`{"runs": [` + run + ", " + run + `]}`)); err == nil || !strings.Contains(err.Error(), `runs[1].id: "a" is runs[0]'s too`) {
		t.Errorf("two runs of id a: %v", err)
	}
	for in, want := range map[string]string{
		strings.Replace(oneRun, `"gpu": "H100"`, `"gpu": "H1000"`, 1):                                           `runs[0] (id "a"): gpu: `,
		strings.Replace(oneRun, `"model": "Qwen/Qwen2.5-7B-Instruct"`, `"model": "Qwen/Qwen2.5-7B-Instrct"`, 1): `runs[0] (id "a"): model: `,
	} {
		f, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.CardProblems(sim.DefaultCards()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
	f, _ := Parse([]byte(oneRun))
	if err := f.CardProblems(sim.DefaultCards()); err != nil {
		t.Errorf("known cards: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(oneRun))
	f.Add([]byte(`{"runs":[{"measured_ms":{"stage_-1":{}}}]}`))
	f.Add([]byte(strings.Replace(oneRun, `"itl_mean": 7.5`, `"itl_mean": -7.5`, 1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err == nil && len(file.Runs) == 0 {
			t.Fatal("accepted a file without runs")
		}
		if err == nil {
			for _, r := range file.Runs {
				if len(r.Problems()) > 0 {
					t.Fatalf("accepted a run with problems %v", r.Problems())
				}
			}
		}
	})
}

func TestSpearman(t *testing.T) {
	if r, _ := Spearman([]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}); math.Abs(r-1) > 1e-12 {
		t.Errorf("monotone: %v", r)
	}
	if r, _ := Spearman([]float64{1, 2, 3}, []float64{3, 2, 1}); math.Abs(r+1) > 1e-12 {
		t.Errorf("reversed: %v", r)
	}
	if _, ok := Spearman([]float64{1, 2}, []float64{5, 5}); ok {
		t.Error("constant side has no correlation")
	}
	// ties take their average rank: x ranks 1.5 1.5 3, y 1 2 3.
	if r, _ := Spearman([]float64{1, 1, 2}, []float64{1, 2, 3}); math.Abs(r-math.Sqrt(0.75)) > 1e-12 {
		t.Errorf("ties: %v", r)
	}
}

func TestSaturatedNeedsAGrowingQueue(t *testing.T) {
	recs := func(f func(i int) time.Duration) []bench.Record {
		var out []bench.Record
		for i := range 40 {
			out = append(out, bench.Record{Index: i, Success: true, TTFT: f(i)})
		}
		return out
	}
	steady := recs(func(int) time.Duration { return 2 * time.Second })
	growing := recs(func(i int) time.Duration {
		if i < 20 {
			return 500 * time.Millisecond
		}
		return time.Duration(i-20) * 200 * time.Millisecond
	})
	if got := saturated(steady, []int{0}); got[0] {
		t.Error("a steady 2 s TTFT is slow, not a growing queue")
	}
	if got := saturated(growing, []int{0, 20}); got[0] || !got[1] {
		t.Errorf("stage 0 holds at 0.5 s, stage 1 grows to 3.8 s: %v", got)
	}
}

func TestGroupsFindOneKnobSweeps(t *testing.T) {
	f, _ := Parse([]byte(oneRun))
	a := f.Runs[0]
	b, c, d := a, a, a
	b.ID, b.TP = "b", 2
	c.ID, c.TP = "c", 4
	d.ID, d.TP, d.MaxNumSeqs = "d", 2, 64 // two knobs away from a
	f.Runs = []Run{a, b, c, d}
	rep := &Report{}
	for i, r := range f.Runs {
		v := 100.0 * float64(i+1)
		rep.Runs = append(rep.Runs, RunReport{ID: r.ID, Summary: Row{Real: map[string]float64{"e2e_mean": v}, Sim: map[string]float64{"e2e_mean": 1000 - v}}})
	}
	gs := groups(f, rep)
	var names []string
	for _, g := range gs {
		names = append(names, fmt.Sprintf("%s:%v:%v", g.Knob, g.Runs, g.Spearman["e2e_mean"]))
	}
	want := []string{"tp:[a b c]:-1", "max_num_seqs:[b d]:-1"}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", names, want)
	}
}

// A fit to measurements the simulator itself produced with other
// coefficients reproduces them.
func TestFitRecoversSyntheticMeasurements(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a dozen short runs")
	}
	truth := sim.PriorVLLM()
	idx := map[string]int{}
	for i, n := range sim.FeatureNames() {
		idx[n] = i
	}
	truth[idx["weights"]] *= 1.1
	truth[idx["step"]] *= 0.5
	truth[idx["request"]] *= 1.5
	rp := &Replayer{Cards: sim.DefaultCards()}
	f, _ := Parse([]byte(oneRun))
	base := f.Runs[0]
	var runs []Run
	for i, m := range []string{"Qwen/Qwen2.5-7B-Instruct", "mistralai/Mistral-Nemo-Instruct-2407", "meta-llama/Llama-2-7b-hf"} {
		r := base
		r.ID, r.Model = fmt.Sprint(i), m
		s, err := rp.Simulate(context.Background(), &truth, r)
		if err != nil {
			t.Fatal(err)
		}
		r.Measured = measuredFrom(s)
		runs = append(runs, r)
	}
	c, err := Fit(context.Background(), rp, runs, FitOptions{Iterations: 6, Ridge: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(context.Background(), &File{Runs: runs}, "fitted", Fitted(rp, &c))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"e2e_mean", "ttft_mean", "itl_mean"} {
		if e := rep.StageMAPE[m]; e > 3 {
			t.Errorf("%s: MAPE %.1f%% after fitting the simulator's own numbers (coefficients %v)", m, e, c)
		}
	}
	prior, _ := Check(context.Background(), &File{Runs: runs}, "prior", Fitted(rp, ptr(sim.PriorVLLM())))
	if prior.StageMAPE["e2e_mean"] < 2*rep.StageMAPE["e2e_mean"] {
		t.Errorf("the fit did not improve on the prior: %.1f%% → %.1f%%", prior.StageMAPE["e2e_mean"], rep.StageMAPE["e2e_mean"])
	}
}

func ptr[T any](v T) *T { return &v }

func measuredFrom(s *Simulated) map[string]Stat {
	stat := func(m bench.Metrics) Stat {
		return Stat{E2EMean: ptr(m.E2EL.Mean), TTFTMean: ptr(m.TTFT.Mean), ITLMean: ptr(m.ITL.Mean)}
	}
	out := map[string]Stat{"summary": stat(s.Metrics)}
	for k, st := range s.Metrics.Stages {
		out[fmt.Sprintf("stage_%d", k)] = stat(st)
	}
	return out
}

func TestReportJSONHasTheFigures(t *testing.T) {
	f, _ := Parse([]byte(oneRun))
	rep, err := Check(context.Background(), f, "fitted", Fitted(&Replayer{Cards: sim.DefaultCards()}, nil))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep)
	for _, k := range []string{`"stage_mape_pct"`, `"saturated_stages"`, `"ape_pct"`, `"stage_1"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("report JSON lacks %s", k)
		}
	}
	if rep.Stages != 2 || len(rep.Runs[0].Stages) != 2 || rep.Runs[0].Stages[1].Rate != 4 {
		t.Errorf("stages %+v", rep.Runs[0].Stages)
	}
}

// Two runs of one workload that differ in max_num_seqs form a one-knob
// group although each parsed run has its own ignore_eos pointer, and the
// JSON report always has a groups section.
func TestOneKnobGroupOnACalibrationFormatFile(t *testing.T) {
	two := strings.Replace(oneRun, `]}`, `, `+strings.Replace(strings.Replace(runJSON(oneRun), `"id": "a"`, `"id": "b"`, 1),
		`"max_num_seqs": 128`, `"max_num_seqs": 256`, 1)+`]}`, 1)
	f, err := Parse([]byte(two))
	if err != nil {
		t.Fatal(err)
	}
	if f.Runs[0].Workload.IgnoreEOS == f.Runs[1].Workload.IgnoreEOS {
		t.Fatal("the runs share an ignore_eos pointer; the test would not exercise the key")
	}
	e2e := []float64{800, 900}
	predict := func(_ context.Context, i int, _ Run) (*Simulated, error) {
		s := &Simulated{}
		s.Metrics.E2EL = bench.Dist{N: 10, Mean: e2e[i] * 1.1}
		return s, nil
	}
	rep, err := Check(context.Background(), f, "fitted", predict)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 1 || rep.Groups[0].Knob != "max_num_seqs" || len(rep.Groups[0].Runs) != 2 {
		t.Fatalf("groups %+v, want one max_num_seqs group of runs a and b", rep.Groups)
	}
	one, _ := Parse([]byte(oneRun))
	rep1, err := Check(context.Background(), one, "fitted", predict)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep1)
	if !strings.Contains(string(b), `"groups":[]`) {
		t.Errorf("JSON without groups: want \"groups\":[], got %s", b)
	}
}

// runJSON is the single run object of a one-run file.
func runJSON(file string) string {
	return file[strings.Index(file, "[")+1 : strings.LastIndex(file, "]")]
}
