package fidelity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// replaySeed fixes the simulated workload's sampling; the measured runs'
// own seeds are not recorded.
const replaySeed = 1

// Config is the run's serving config as simulator knobs.
func (r Run) Config() space.Config {
	cfg := space.Config{
		"engine":          engines.VLLM,
		"tp":              int64(r.TP),
		"dp":              int64(max(r.DP, 1)),
		"chunked_prefill": int64(r.MaxNumBatchedTokens),
		"max_running":     int64(r.MaxNumSeqs),
		"prefix_caching":  r.PrefixCaching == nil || *r.PrefixCaching,
	}
	if r.MaxNumBatchedTokens == 0 {
		delete(cfg, "chunked_prefill")
	}
	if r.MaxNumSeqs == 0 {
		delete(cfg, "max_running")
	}
	if r.GPUMemUtil != nil {
		cfg["mem_fraction"] = *r.GPUMemUtil
	}
	switch strings.ToUpper(r.Precision) {
	case "FP8":
		cfg["model_variant"] = "fp8"
	case "FP16", "BF16", "":
		cfg["model_variant"] = "bf16"
	}
	return cfg
}

// Target is the run's hardware and model.
func (r Run) Target() space.Target {
	return space.Target{Engine: engines.VLLM, Model: r.Model, GPU: r.GPU, GPUs: r.TP * max(r.DP, 1)}
}

// History is how a replay treats enable_multi_turn_chat: HistoryNone
// sends every round as system prompt + question (what the calibration
// set's latencies are consistent with, docs/sim.md), HistoryRestart and
// HistoryTruncate grow a conversation until max_model_len
// (bench.SharedPrefix.Overflow).
const (
	HistoryNone     = "none"
	HistoryRestart  = "restart"
	HistoryTruncate = "truncate"
)

// Replayer simulates runs against a card catalogue.
type Replayer struct {
	Cards   *sim.Cards
	History string // "" = HistoryNone
	// TokensPerChunk, when set, replaces the model cards' tokens_per_chunk
	// (by card name; 0 = one chunk per token): what a leave-one-out fold
	// measured on its training runs.
	TokensPerChunk map[string]float64
}

// Profile is the run's workload as a servetune profile, multi-turn
// histories as history says.
func (r Run) Profile(history string) bench.Profile {
	w := r.Workload
	p := bench.Profile{Name: "run-" + r.ID, Dataset: bench.DatasetSharedPrefix, Seed: replaySeed,
		SharedPrefix: &bench.SharedPrefix{Groups: w.Groups, UsersPerGroup: w.UsersPerGroup,
			SystemPromptLen: w.SystemPromptLen, QuestionLen: w.QuestionLen, OutputLen: w.OutputLen,
			MultiTurn: w.MultiTurn, MaxModelLen: w.MaxModelLen},
		NoIgnoreEOS: w.IgnoreEOS != nil && !*w.IgnoreEOS,
		Percentiles: []float64{90, 99},
	}
	switch history {
	case HistoryRestart, HistoryTruncate:
		p.SharedPrefix.Overflow = history
	default:
		p.SharedPrefix.MultiTurn = false
	}
	for _, s := range w.Stages {
		p.Stages = append(p.Stages, bench.Stage{Rate: s.Rate, Duration: time.Duration(s.DurationS * float64(time.Second))})
	}
	return p
}

// cardsFor is the catalogue with the run's model limited to the context
// the server ran with (max_model_len), which sizes the KV plan.
func cardsFor(base *sim.Cards, r Run, chunks map[string]float64) (*sim.Cards, error) {
	limit := r.MaxModelLen
	if limit == 0 {
		limit = r.Workload.MaxModelLen
	}
	m, err := base.Model(r.Model)
	if err != nil {
		return nil, err
	}
	tpc, override := chunks[m.Name]
	if !override && (limit == 0 || (m.MaxContext > 0 && m.MaxContext <= limit)) {
		return base, nil
	}
	c := *base
	c.Models = append([]sim.ModelCard(nil), base.Models...)
	for i := range c.Models {
		if c.Models[i].Name != m.Name {
			continue
		}
		if limit > 0 && (m.MaxContext == 0 || m.MaxContext > limit) {
			c.Models[i].MaxContext = limit
		}
		if override {
			c.Models[i].TokensPerChunk = tpc
		}
	}
	return &c, nil
}

// TokensPerChunk measures each model's text chunks per token from runs
// (ITL × (tokens − 1) ÷ (e2e − TTFT) of their summaries, averaged), for
// Replayer.TokensPerChunk: a model whose mean is under 1.1 streams a
// chunk per token (0, the card's absent value), and a model of cards
// without a run gets 0 too — so a leave-one-out replay does not use a
// card value measured on the held-out run.
func TokensPerChunk(cards *sim.Cards, runs []Run, all []Run) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, r := range runs {
		m, err := cards.Model(r.Model)
		s := r.Measured["summary"]
		if err != nil || s.ITLMean == nil || s.E2EMean == nil || s.TTFTMean == nil || r.Workload.OutputLen < 2 {
			continue
		}
		if d := *s.E2EMean - *s.TTFTMean; d > 0 {
			sum[m.Name] += *s.ITLMean * float64(r.Workload.OutputLen-1) / d
			n[m.Name]++
		}
	}
	out := map[string]float64{}
	for _, r := range all {
		if m, err := cards.Model(r.Model); err == nil {
			out[m.Name] = 0
			if k := n[m.Name]; k > 0 && sum[m.Name]/float64(k) >= 1.1 {
				out[m.Name] = sum[m.Name] / float64(k)
			}
		}
	}
	return out
}

// Simulated is one run's simulation: its summary and per-stage metrics,
// the requests' features (for fitting) and which stages saturated.
type Simulated struct {
	Metrics   bench.Metrics
	Features  []sim.RequestFeatures
	Records   []bench.Record
	Plan      bench.Plan
	Saturated []bool
}

// Simulate replays run r with the given coefficients (nil: fitted).
func (rp *Replayer) Simulate(ctx context.Context, coef *sim.Coefficients, r Run) (*Simulated, error) {
	cs, err := cardsFor(rp.Cards, r, rp.TokensPerChunk)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	p := r.Profile(rp.History)
	plan, err := p.Plan()
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	sm := &sim.Simulator{Cards: cs, Coef: coef}
	recs, dur, tr, err := sm.EvaluateTrace(ctx, r.Config(), r.Target(), p, replaySeed)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	out := &Simulated{Records: recs, Features: tr.Requests, Plan: plan,
		Metrics: bench.Summarize(recs, dur, p.Summary(bench.SummaryOptions{}))}
	out.Saturated = saturated(recs, plan.StageStarts)
	return out, nil
}

// saturated reports, per stage, whether the simulated queue grew without
// bound: the stage's last quarter of requests waited for their first
// token at least twice as long as its first quarter, and over a second.
func saturated(recs []bench.Record, starts []int) []bool {
	out := make([]bool, len(starts))
	for k := range starts {
		end := len(recs)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		n := end - starts[k]
		if n < 8 {
			continue
		}
		q := n / 4
		first := meanTTFT(recs[starts[k] : starts[k]+q])
		last := meanTTFT(recs[end-q : end])
		out[k] = last > 1000 && last > 2*first
	}
	return out
}

func meanTTFT(recs []bench.Record) float64 {
	s, n := 0.0, 0
	for _, r := range recs {
		if r.Success {
			s += float64(r.TTFT) / float64(time.Millisecond)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}
