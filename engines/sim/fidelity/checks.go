package fidelity

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim/calib/measure"
)

// maxFile bounds a measurements file: the shared calibration set is
// 40 KB, so 64 MiB holds any real one and a path such as /dev/zero fails
// at once.
const maxFile = 64 << 20

// statProblems refuses measured latencies that cannot be: negative or
// non-finite ones, and a stat whose latencies look like seconds
// (measure.LooksLikeSeconds: every mean TTFT and ITL below 1 ms).
func statProblems(measured map[string]Stat) []string {
	var p []string
	keys := make([]string, 0, len(measured))
	for k := range measured {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := measured[k]
		v := reflect.ValueOf(s)
		for i := range v.NumField() {
			f, ok := v.Field(i).Interface().(*float64)
			if !ok || f == nil {
				continue
			}
			if x := *f; math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
				p = append(p, fmt.Sprintf("measured_ms.%s.%s: %v is not a latency (a finite number of milliseconds >= 0)", k, name, x))
			}
		}
		if measure.LooksLikeSeconds(deref(s.TTFTMean), deref(s.ITLMean)) {
			p = append(p, fmt.Sprintf("measured_ms.%s.ttft_mean: latencies look like seconds, not milliseconds (ttft_mean %v, itl_mean %v: below 1 ms, faster than any server): give them in milliseconds",
				k, deref(s.TTFTMean), deref(s.ITLMean)))
		}
	}
	return p
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// workloadProblems bounds the load a replay plans, with bench's caps, and
// refuses negative lengths.
func workloadProblems(w Workload) []string {
	var p []string
	for _, f := range []struct {
		key string
		v   int
	}{{"system_prompt_len", w.SystemPromptLen}, {"question_len", w.QuestionLen}, {"output_len", w.OutputLen}, {"max_model_len", w.MaxModelLen}} {
		if f.v < 0 || f.v > bench.MaxRequestTokens {
			p = append(p, fmt.Sprintf("workload.%s: %d is outside 0..%d tokens", f.key, f.v, bench.MaxRequestTokens))
		}
	}
	for _, f := range []struct {
		key string
		v   int
	}{{"num_unique_system_prompts", w.Groups}, {"num_users_per_system_prompt", w.UsersPerGroup}} {
		if f.v < 1 || f.v > bench.MaxRequests {
			p = append(p, fmt.Sprintf("workload.%s: %d is outside 1..%d", f.key, f.v, bench.MaxRequests))
		}
	}
	var span, reqs float64
	for _, s := range w.Stages {
		span += s.DurationS
		reqs += s.Rate * s.DurationS
	}
	if span > bench.MaxSpan.Seconds() || math.IsInf(span, 0) {
		p = append(p, fmt.Sprintf("workload.stages: last %v s in all, longer than the %v a load may run", span, bench.MaxSpan))
	}
	if reqs > bench.MaxRequests || math.IsInf(reqs, 0) {
		p = append(p, fmt.Sprintf("workload.stages: send %.3g requests in all, more than %d", reqs, bench.MaxRequests))
	}
	return p
}

// configProblems refuses serving settings no vLLM takes.
func configProblems(r Run) []string {
	var p []string
	for _, f := range []struct {
		key string
		v   int
	}{{"max_num_seqs", r.MaxNumSeqs}, {"max_num_batched_tokens", r.MaxNumBatchedTokens}, {"max_model_len", r.MaxModelLen}} {
		if f.v < 0 || f.v > bench.MaxRequestTokens {
			p = append(p, fmt.Sprintf("%s: %d is outside 0..%d (0: vLLM's default)", f.key, f.v, bench.MaxRequestTokens))
		}
	}
	if u := r.GPUMemUtil; u != nil && !(*u > 0 && *u <= 1) {
		p = append(p, fmt.Sprintf("gpu_memory_utilization: %v is not a fraction in (0, 1]", *u))
	}
	if r.TP > 4096 || r.DP > 4096 {
		p = append(p, fmt.Sprintf("tp %d / dp %d: more than 4096 GPUs", r.TP, r.DP))
	}
	return p
}
