package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Dist summarises one latency distribution in milliseconds. With no
// samples (N = 0) its statistics are undefined: zero here, absent from
// Values.
type Dist struct {
	N           int                `json:"n"`
	Mean        float64            `json:"mean"`
	Median      float64            `json:"median"`
	Std         float64            `json:"std"`
	Percentiles map[string]float64 `json:"percentiles"` // "p95" -> value
}

// Metrics follows `vllm bench serve`'s calculate_metrics; docs/metrics.md
// states every definition.
type Metrics struct {
	Completed            int     `json:"completed"`
	Failed               int     `json:"failed"`
	MaxConcurrency       int     `json:"max_concurrency,omitempty"`
	RequestRate          float64 `json:"request_rate,omitempty"`
	DurationS            float64 `json:"duration_s"`
	TotalInput           int     `json:"total_input_tokens"`
	TotalOutput          int     `json:"total_output_tokens"`
	RequestThroughput    float64 `json:"request_throughput"`
	OutputThroughput     float64 `json:"output_throughput"`
	TotalTokenThroughput float64 `json:"total_token_throughput"`
	PeakOutputThroughput float64 `json:"peak_output_throughput"`
	PeakConcurrent       float64 `json:"peak_concurrent_requests"`
	Goodput              float64 `json:"request_goodput,omitempty"`
	// SLOAttainment is the fraction of requests (completed or failed)
	// that completed within every bound of GoodputSLO.
	SLOAttainment float64 `json:"slo_attainment,omitempty"`
	// GoodputSLO is the SLO goodput was measured against; nil when none was
	// given (Goodput is then meaningless).
	GoodputSLO *SLO     `json:"goodput_slo,omitempty"`
	TTFT       Dist     `json:"ttft_ms"`
	TPOT       Dist     `json:"tpot_ms"`
	ITL        Dist     `json:"itl_ms"`
	E2EL       Dist     `json:"e2el_ms"`
	Errors     []string `json:"errors,omitempty"`
	// FailedByClass counts failed requests per ErrorClass.
	FailedByClass map[ErrorClass]int `json:"failed_by_class,omitempty"`
	// ErrorExamples holds the first message of each failure class.
	ErrorExamples map[ErrorClass]string `json:"error_examples,omitempty"`
	// Aborted counts requests cut off by the run stopping (deadline, stop
	// signal); they are neither completed nor failed.
	Aborted int `json:"aborted,omitempty"`
	// Stages are the metrics of each stage of a multi-stage profile, over
	// the requests planned in it (as inference-perf groups them by the
	// stage that scheduled them).
	Stages []Metrics `json:"stages,omitempty"`
	// noPeaks: the peaks were not computed (SummaryOptions.NoPeaks).
	noPeaks bool
}

// SLO bounds, in milliseconds, for goodput and SLO attainment; zero means
// no bound. The TOML keys are those of a space file's [slo] table.
type SLO struct {
	TTFTMs float64 `toml:"ttft_ms" json:"ttft_ms,omitempty"`
	TPOTMs float64 `toml:"tpot_ms" json:"tpot_ms,omitempty"`
	E2ELMs float64 `toml:"e2el_ms" json:"e2el_ms,omitempty"`
}

// SummaryOptions controls Summarize.
type SummaryOptions struct {
	// Percentiles to report, e.g. {50, 95, 99}; p50/p90/p95/p99 are always present.
	Percentiles []float64
	// StageStarts is the index of each stage's first request: Metrics.Stages
	// then holds one summary per stage (Profile.Summary fills it).
	StageStarts []int
	Goodput     SLO
	// MaxErrors is how many distinct failure messages to keep (default 5).
	MaxErrors int
	// NoITL skips the inter-token latency distribution — by far the
	// costliest part, a million gaps for a 1000 × 1K-token benchmark — for
	// summaries that do not need it (the simulator's pruning checkpoints).
	// The ITL metrics are then absent from Values.
	NoITL bool
	// NoPeaks skips the peak output throughput and concurrency, which walk
	// every token's arrival: for summaries that do not need them (the
	// simulator prior's, whose records may carry no gaps). They are then
	// absent from Values.
	NoPeaks bool
}

// Summarize computes metrics from records over a benchmark of the given
// duration. Warm-up records are ignored, and so are aborted ones beyond
// their count.
func Summarize(recs []Record, duration time.Duration, opt SummaryOptions) Metrics {
	pcts := withDefaultPercentiles(opt.Percentiles)
	maxErr := opt.MaxErrors
	if maxErr == 0 {
		maxErr = 5
	}
	var m Metrics
	m.DurationS = duration.Seconds()
	// A benchmark can hold a million inter-token gaps: size the slices once.
	nITL := 0
	for _, r := range recs {
		if !opt.NoITL {
			nITL += len(r.ITL)
		}
	}
	ttfts := make([]float64, 0, len(recs))
	tpots := make([]float64, 0, len(recs))
	e2els := make([]float64, 0, len(recs))
	good := 0
	for _, r := range recs {
		if r.Warmup {
			continue
		}
		if r.Class == ClassAborted {
			m.Aborted++
			continue
		}
		if !r.Success {
			m.Failed++
			if m.FailedByClass == nil {
				m.FailedByClass = map[ErrorClass]int{}
				m.ErrorExamples = map[ErrorClass]string{}
			}
			m.FailedByClass[r.Class]++
			if _, ok := m.ErrorExamples[r.Class]; !ok && r.Error != "" {
				m.ErrorExamples[r.Class] = r.Error
			}
			if r.Error != "" && len(m.Errors) < maxErr && !slices.Contains(m.Errors, r.Error) {
				m.Errors = append(m.Errors, r.Error)
			}
			continue
		}
		m.Completed++
		m.TotalInput += r.InputTokens
		m.TotalOutput += r.OutputTokens
		ttft := ms(r.TTFT)
		tpot := 0.0
		if r.OutputTokens > 1 {
			tpot = ms(r.Latency-r.TTFT) / float64(r.OutputTokens-1)
			tpots = append(tpots, tpot)
		}
		ttfts = append(ttfts, ttft)
		e2els = append(e2els, ms(r.Latency))
		if meets(opt.Goodput, ttft, tpot, ms(r.Latency)) {
			good++
		}
	}
	if s := m.DurationS; s > 0 {
		m.RequestThroughput = float64(m.Completed) / s
		m.OutputThroughput = float64(m.TotalOutput) / s
		m.TotalTokenThroughput = float64(m.TotalInput+m.TotalOutput) / s
		if opt.Goodput != (SLO{}) {
			m.Goodput = float64(good) / s
			slo := opt.Goodput
			m.GoodputSLO = &slo
		}
	}
	if n := m.Completed + m.Failed; n > 0 && opt.Goodput != (SLO{}) {
		// A failed request missed its SLO: attainment is what users saw.
		m.SLOAttainment = float64(good) / float64(n)
		slo := opt.Goodput
		m.GoodputSLO = &slo
	}
	if m.noPeaks = opt.NoPeaks; !opt.NoPeaks {
		m.PeakOutputThroughput, m.PeakConcurrent = peaks(recs)
	}
	m.TTFT = summarize(ttfts, pcts)
	m.TPOT = summarize(tpots, pcts)
	if !opt.NoITL {
		m.ITL = itlDist(recs, pcts, nITL)
	}
	m.E2EL = summarize(e2els, pcts)
	m.Stages = stageMetrics(recs, opt)
	return m
}

// stageMetrics summarises each stage's requests over the time from the
// stage's first send to its last reply.
func stageMetrics(recs []Record, opt SummaryOptions) []Metrics {
	starts := opt.StageStarts
	if len(starts) == 0 {
		return nil
	}
	sub := opt
	sub.StageStarts = nil
	out := make([]Metrics, len(starts))
	for k := range starts {
		end := math.MaxInt
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		var in []Record
		for _, r := range recs {
			if !r.Warmup && r.Index >= starts[k] && r.Index < end {
				in = append(in, r)
			}
		}
		out[k] = Summarize(in, span(in), sub)
	}
	return out
}

// span is from the first request's send to the last one's end.
func span(recs []Record) time.Duration {
	if len(recs) == 0 {
		return 0
	}
	first, last := recs[0].Start, recs[0].Start+recs[0].Latency
	for _, r := range recs {
		first = min(first, r.Start)
		last = max(last, r.Start+r.Latency)
	}
	return last - first
}

// Values flattens the metrics into the names objectives and constraints use:
// total_tps, output_tps, request_tps, peak_output_tps, and
// {mean,median,std,pNN}_{ttft,tpot,itl,e2e}_ms, plus mean/median/pNN_e2e_s.
// An undefined metric is absent, never NaN or zero: the throughputs without
// a duration, goodput without an SLO, a distribution without samples (TPOT
// when no request produced two tokens, anything when none succeeded).
func (m Metrics) Values() map[string]float64 {
	v := map[string]float64{
		MetricCompleted:       float64(m.Completed),
		MetricFailed:          float64(m.Failed),
		"duration_s":          m.DurationS,
		"total_input_tokens":  float64(m.TotalInput),
		"total_output_tokens": float64(m.TotalOutput),
	}
	if !m.noPeaks {
		v["peak_output_tps"], v["peak_concurrency"] = m.PeakOutputThroughput, m.PeakConcurrent
	}
	if m.DurationS > 0 {
		v[MetricRequestTPS] = m.RequestThroughput
		v[MetricOutputTPS] = m.OutputThroughput
		v[MetricTotalTPS] = m.TotalTokenThroughput
		if m.GoodputSLO != nil {
			v[MetricGoodput] = m.Goodput
		}
	}
	if m.GoodputSLO != nil && m.Completed+m.Failed > 0 {
		v[MetricSLOAttainment] = m.SLOAttainment
	}
	for name, d := range map[string]Dist{"ttft": m.TTFT, "tpot": m.TPOT, "itl": m.ITL, "e2e": m.E2EL} {
		if d.N == 0 {
			continue // no samples, or not computed (SummaryOptions.NoITL)
		}
		v["mean_"+name+"_ms"] = d.Mean
		v["median_"+name+"_ms"] = d.Median
		v["std_"+name+"_ms"] = d.Std
		for k, x := range d.Percentiles {
			v[k+"_"+name+"_ms"] = x
		}
	}
	if m.E2EL.N > 0 {
		v["mean_e2e_s"] = m.E2EL.Mean / 1000
		v["median_e2e_s"] = m.E2EL.Median / 1000
		for k, x := range m.E2EL.Percentiles {
			v[k+"_e2e_s"] = x / 1000
		}
	}
	for i, st := range m.Stages {
		for k, x := range st.Values() {
			v[fmt.Sprintf("stage%d_%s", i, k)] = x
		}
	}
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			delete(v, k) // cannot come from Summarize; a hand-built Metrics still never yields one
		}
	}
	return v
}

// PercentileKey names a percentile the way Values does: 99 → "p99", 99.9 → "p99.9".
func PercentileKey(p float64) string { return "p" + fmt.Sprint(p) }

func withDefaultPercentiles(ps []float64) []float64 {
	out := []float64{50, 90, 95, 99}
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func summarize(xs []float64, pcts []float64) Dist {
	sortFloats(xs) // Summarize owns these slices: sort in place
	return summarizeSorted(xs, pcts)
}

// summarizeSorted is summarize of data already sorted.
func summarizeSorted(sorted []float64, pcts []float64) Dist {
	d := Dist{N: len(sorted), Percentiles: make(map[string]float64, len(pcts))}
	if len(sorted) == 0 {
		for _, p := range pcts {
			d.Percentiles[PercentileKey(p)] = 0
		}
		return d
	}
	sum := 0.0
	for _, x := range sorted {
		sum += x
	}
	d.Mean = sum / float64(len(sorted))
	ss := 0.0
	for _, x := range sorted {
		ss += (x - d.Mean) * (x - d.Mean)
	}
	d.Std = math.Sqrt(ss / float64(len(sorted))) // numpy.std: population
	d.Median = percentile(sorted, 50)
	for _, p := range pcts {
		d.Percentiles[PercentileKey(p)] = percentile(sorted, p)
	}
	return d
}

// percentile is numpy.percentile's default ("linear") on sorted data.
func percentile(sorted []float64, p float64) float64 {
	return percentileAt(func(i int) float64 { return sorted[i] }, len(sorted), p)
}

// percentileAt is percentile of the n sorted values at(0) … at(n-1).
func percentileAt(at func(int) float64, n int, p float64) float64 {
	if n == 1 {
		return at(0)
	}
	pos := p / 100 * float64(n-1)
	lo := int(math.Floor(pos))
	if lo >= n-1 {
		return at(n - 1)
	}
	frac := pos - float64(lo)
	return at(lo) + frac*(at(lo+1)-at(lo))
}

// peaks computes vllm bench's peak output token throughput and peak
// concurrent requests over successful requests, in whole-second buckets from
// the earliest start: each content chunk adds one to the bucket it arrived
// in (vllm counts chunks, which are tokens unless the server batches them),
// and each request adds one to every bucket from its start to its end
// second inclusive — so the concurrency peak counts requests that merely
// touch the same second, and can exceed max_concurrency.
func peaks(recs []Record) (tokens, concurrent float64) {
	first, n, any := peakBuckets(recs)
	if !any {
		return 0, 0
	}
	tok := make([]int, n)
	conc := make([]int, n)
	sec := func(t time.Duration) int { return int((t - first) / time.Second) }
	for _, r := range recs {
		if r.Warmup || !r.Success {
			continue
		}
		// Bounds checked: records read from a file may hold any durations.
		// A reply's chunks arrive in order, mostly many to a second: the
		// bucket is divided out again only when a chunk leaves the second
		// of the one before (a division per chunk was most of a
		// simulated trial's summary).
		t := r.Start + r.TTFT
		b := sec(t)
		lo, hi := bucketSpan(first, b, t)
		for i := -1; i < len(r.ITL); i++ {
			if i >= 0 {
				t += r.ITL[i]
				if t < lo || t >= hi {
					b = sec(t)
					lo, hi = bucketSpan(first, b, t)
				}
			}
			if b >= 0 && b < n {
				tok[b]++
			}
		}
		// Its seconds lo..hi, as a difference: a walk over every second a
		// request spans cost requests × latency, and a queue that grows
		// with the clients makes both grow (16,000 requests at 8,192
		// clients span 7 M request-seconds against 37 k at 1,000 and 512).
		if lo, hi := max(sec(r.Start), 0), min(sec(r.Start+r.Latency), n-1); lo <= hi {
			conc[lo]++
			if hi+1 < n {
				conc[hi+1]--
			}
		}
	}
	pt, pc, running := 0, 0, 0
	for i := range tok {
		running += conc[i]
		pt, pc = max(pt, tok[i]), max(pc, running)
	}
	return float64(pt), float64(pc)
}

// peakBuckets is where peaks' whole-second buckets start (the earliest
// start of a successful request) and how many there are; false when no
// request succeeded.
func peakBuckets(recs []Record) (first time.Duration, n int, any bool) {
	var last time.Duration
	for _, r := range recs {
		if r.Warmup || !r.Success {
			continue
		}
		if !any || r.Start < first {
			first = r.Start
		}
		last = max(last, r.Start+r.Latency)
		any = true
	}
	if !any {
		return 0, 0, false
	}
	return first, int(math.Ceil((last - first).Seconds())) + 1, true
}

// bucketSpan is the span of instants whose second after first is b, for
// t in it: [first + b s, first + (b+1) s) when t ≥ first; an empty span
// otherwise (before first the division truncates towards zero, so peaks
// divides every such chunk itself).
func bucketSpan(first time.Duration, b int, t time.Duration) (lo, hi time.Duration) {
	if t < first {
		return 1, 0
	}
	lo = first + time.Duration(b)*time.Second
	return lo, lo + time.Second
}

func meets(s SLO, ttft, tpot, e2el float64) bool {
	return (s.TTFTMs == 0 || ttft <= s.TTFTMs) && (s.TPOTMs == 0 || tpot <= s.TPOTMs) && (s.E2ELMs == 0 || e2el <= s.E2ELMs)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
