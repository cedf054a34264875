package fidelity

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
)

// Metrics compared, in report order: mean and tail end-to-end latency and
// TTFT, mean inter-token latency.
var metricNames = []string{"e2e_mean", "e2e_p90", "e2e_p99", "ttft_mean", "ttft_p90", "ttft_p99", "itl_mean"}

// MetricNames lists the compared metrics.
func MetricNames() []string { return append([]string(nil), metricNames...) }

// Row is one stage (or a run's summary): measured and simulated values in
// ms, and the absolute percentage error of each metric both have.
type Row struct {
	Stage     string             `json:"stage"`
	Rate      float64            `json:"rate,omitempty"`
	Real      map[string]float64 `json:"real_ms"`
	Sim       map[string]float64 `json:"sim_ms"`
	APE       map[string]float64 `json:"ape_pct"`
	Saturated bool               `json:"saturated,omitempty"`
	// Interval is each simulated metric's stated uncertainty (stage rows;
	// sim.Uncertainty), absent where the metric has none.
	Interval map[string]sim.Interval `json:"interval_ms,omitempty"`
}

// RunReport is one run's rows.
type RunReport struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	GPU     string `json:"gpu"`
	TP      int    `json:"tp"`
	Stages  []Row  `json:"stages"`
	Summary Row    `json:"summary"`
	Error   string `json:"error,omitempty"`
}

// Group is a one-knob sweep: runs of one model and workload that differ
// only in Knob, with the Spearman correlation of measured and simulated
// values per metric.
type Group struct {
	Knob     string             `json:"knob"`
	Model    string             `json:"model"`
	Runs     []string           `json:"runs"`
	Spearman map[string]float64 `json:"spearman"`
}

// Report is what `servetune sim check` prints (the JSON is the contract).
type Report struct {
	Mode string      `json:"mode"` // "fitted" or "leave-one-out"
	Runs []RunReport `json:"runs"`
	// StageMAPE is the mean APE over every stage row, per metric, in %;
	// SummaryMAPE over the runs' summary rows.
	StageMAPE   map[string]float64 `json:"stage_mape_pct"`
	SummaryMAPE map[string]float64 `json:"summary_mape_pct"`
	Stages      int                `json:"stages"`
	// SaturatedStages counts stages whose simulated queue grew without
	// bound while the real server kept up (every measured stage here did).
	SaturatedStages int `json:"saturated_stages"`
	// Groups is always present in the JSON ([] when the file has none),
	// so a reader can tell "no one-knob group" from an older report.
	Groups []Group `json:"groups"`
	// Coverage is how often the stage rows' measured values fell within
	// their stated intervals (interval.go); nil until AddIntervals.
	Coverage *Coverage `json:"interval_coverage,omitempty"`
}

// Predictor simulates run i; Check uses the fitted model, CheckLOO a
// model refitted without run i.
type Predictor func(ctx context.Context, i int, r Run) (*Simulated, error)

// Fitted predicts with the given coefficients (nil: the built-in fit).
func Fitted(rp *Replayer, coef *sim.Coefficients) Predictor {
	return func(ctx context.Context, _ int, r Run) (*Simulated, error) { return rp.Simulate(ctx, coef, r) }
}

// Check compares every run of f with its prediction.
func Check(ctx context.Context, f *File, mode string, predict Predictor) (*Report, error) {
	return CheckWorkers(ctx, f, mode, predict, 1)
}

// CheckWorkers is Check with up to workers predictions at once: a
// leave-one-out fold refits the model on the other runs (13 folds of
// 8 simulated rounds each, minutes apiece), and the folds share nothing
// mutable (each refit starts from a copy, each replay builds its own
// cards and simulator), so they run side by side; the report is the same
// byte for byte, rows in the file's order.
func CheckWorkers(ctx context.Context, f *File, mode string, predict Predictor, workers int) (*Report, error) {
	type result struct {
		s   *Simulated
		err error
	}
	out := make([]result, len(f.Runs))
	workers = max(1, min(workers, len(f.Runs)))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s, err := predict(ctx, i, f.Runs[i])
				out[i] = result{s, err}
			}
		}()
	}
feed:
	for i := range f.Runs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rep := &Report{Mode: mode}
	for i, r := range f.Runs {
		rep.Runs = append(rep.Runs, runReport(r, out[i].s, out[i].err))
	}
	rep.aggregate()
	rep.Groups = groups(f, rep)
	return rep, nil
}

func runReport(r Run, s *Simulated, err error) RunReport {
	rr := RunReport{ID: r.ID, Model: r.Model, GPU: r.GPU, TP: r.TP}
	if err != nil {
		rr.Error = err.Error()
		return rr
	}
	for k, st := range r.Workload.Stages {
		key := fmt.Sprintf("stage_%d", k)
		real, ok := r.Measured[key]
		if !ok {
			continue
		}
		var m bench.Metrics
		if k < len(s.Metrics.Stages) {
			m = s.Metrics.Stages[k]
		}
		row := compare(key, real, m)
		row.Rate = st.Rate
		row.Saturated = k < len(s.Saturated) && s.Saturated[k]
		rr.Stages = append(rr.Stages, row)
	}
	rr.Summary = compare("summary", r.Measured["summary"], s.Metrics)
	return rr
}

func compare(stage string, real Stat, m bench.Metrics) Row {
	row := Row{Stage: stage, Real: real.values(), Sim: simValues(m), APE: map[string]float64{}}
	for k, v := range row.Real {
		if sv, ok := row.Sim[k]; ok && v > 0 {
			row.APE[k] = 100 * math.Abs(sv-v) / v
		}
	}
	return row
}

func (s Stat) values() map[string]float64 {
	v := map[string]float64{}
	for k, p := range map[string]*float64{"e2e_mean": s.E2EMean, "e2e_p90": s.E2EP90, "e2e_p99": s.E2EP99,
		"ttft_mean": s.TTFTMean, "ttft_p90": s.TTFTP90, "ttft_p99": s.TTFTP99, "itl_mean": s.ITLMean} {
		if p != nil {
			v[k] = *p
		}
	}
	return v
}

// simValues are the simulated metrics under the measured names; a
// distribution without samples is absent.
func simValues(m bench.Metrics) map[string]float64 {
	v := map[string]float64{}
	put := func(name string, d bench.Dist) {
		if d.N == 0 {
			return
		}
		v[name+"_mean"] = d.Mean
		if x, ok := d.Percentiles["p90"]; ok {
			v[name+"_p90"] = x
		}
		if x, ok := d.Percentiles["p99"]; ok {
			v[name+"_p99"] = x
		}
	}
	put("e2e", m.E2EL)
	put("ttft", m.TTFT)
	if m.ITL.N > 0 {
		v["itl_mean"] = m.ITL.Mean
	}
	return v
}

func (rep *Report) aggregate() {
	var stages, sums []Row
	for _, rr := range rep.Runs {
		stages = append(stages, rr.Stages...)
		if rr.Error == "" {
			sums = append(sums, rr.Summary)
		}
		for _, s := range rr.Stages {
			if s.Saturated {
				rep.SaturatedStages++
			}
		}
	}
	rep.Stages = len(stages)
	rep.StageMAPE = mape(stages)
	rep.SummaryMAPE = mape(sums)
}

// mape is the mean APE per metric over rows that have it.
func mape(rows []Row) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, r := range rows {
		for k, e := range r.APE {
			sum[k] += e
			n[k]++
		}
	}
	out := map[string]float64{}
	for k, s := range sum {
		out[k] = s / float64(n[k])
	}
	return out
}

// knobs are the config fields a one-knob group may vary.
var knobs = []string{"gpu", "tp", "dp", "precision", "max_num_batched_tokens", "max_num_seqs", "gpu_memory_utilization"}

func (r Run) knob(k string) string {
	switch k {
	case "gpu":
		return r.GPU
	case "tp":
		return fmt.Sprint(r.TP)
	case "dp":
		return fmt.Sprint(r.DP)
	case "precision":
		return r.Precision
	case "max_num_batched_tokens":
		return fmt.Sprint(r.MaxNumBatchedTokens)
	case "max_num_seqs":
		return fmt.Sprint(r.MaxNumSeqs)
	}
	if r.GPUMemUtil == nil {
		return "default"
	}
	return fmt.Sprint(*r.GPUMemUtil)
}

// key identifies a workload by value: the pointer fields (ignore_eos) by
// what they point to, so two runs of one workload share a key.
func (w Workload) key() string {
	eos := "unset"
	if w.IgnoreEOS != nil {
		eos = fmt.Sprint(*w.IgnoreEOS)
	}
	c := w
	c.IgnoreEOS = nil
	return fmt.Sprintf("%+v|ignore_eos=%s", c, eos)
}

// groups finds the one-knob sweeps and ranks each metric of their
// summaries.
func groups(f *File, rep *Report) []Group {
	out := []Group{}
	for _, k := range knobs {
		byRest := map[string][]int{}
		for i, r := range f.Runs {
			if rep.Runs[i].Error != "" {
				continue
			}
			key := r.Model + "|" + r.Workload.key()
			for _, o := range knobs {
				if o != k {
					key += "|" + r.knob(o)
				}
			}
			byRest[key] = append(byRest[key], i)
		}
		keys := make([]string, 0, len(byRest))
		for key := range byRest {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			if g, ok := group(f, rep, k, byRest[key]); ok {
				out = append(out, g)
			}
		}
	}
	return out
}

func group(f *File, rep *Report, knob string, idx []int) (Group, bool) {
	vals := map[string]bool{}
	for _, i := range idx {
		vals[f.Runs[i].knob(knob)] = true
	}
	if len(vals) < 2 {
		return Group{}, false
	}
	g := Group{Knob: knob, Model: f.Runs[idx[0]].Model, Spearman: map[string]float64{}}
	for _, i := range idx {
		g.Runs = append(g.Runs, f.Runs[i].ID)
	}
	for _, m := range metricNames {
		var real, simd []float64
		for _, i := range idx {
			s := rep.Runs[i].Summary
			rv, ok1 := s.Real[m]
			sv, ok2 := s.Sim[m]
			if ok1 && ok2 {
				real, simd = append(real, rv), append(simd, sv)
			}
		}
		if len(real) >= 2 {
			if rho, ok := Spearman(real, simd); ok {
				g.Spearman[m] = rho
			}
		}
	}
	return g, true
}

// Spearman is search.Spearman (the one rank correlation), false when
// either side is constant: a group whose runs all measured the same says
// nothing about order.
func Spearman(x, y []float64) (float64, bool) {
	if constant(x) || constant(y) {
		return 0, false
	}
	return search.Spearman(x, y), true
}

func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}
