package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/servetune/servetune/bench"
)

type result struct {
	values  map[string]float64
	profile bench.Profile
}

// parseResult reads either result format: servetune's has schema_version
// and values; vLLM's `--save-result` has completed and the metric keys of
// vllm/benchmarks/serve.py (mean_ttft_ms, p99_itl_ms, ...).
func parseResult(b []byte) (result, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return result{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if _, ok := probe["schema_version"]; ok {
		return servetuneResult(b)
	}
	if _, ok := probe["completed"]; ok {
		return vllmResult(probe)
	}
	return result{}, errors.New("neither a `servetune bench --json` result (schema_version, values) nor a `vllm bench serve --save-result` one (completed, mean_ttft_ms, ...)")
}

func servetuneResult(b []byte) (result, error) {
	var r struct {
		SchemaVersion int                `json:"schema_version"`
		Profile       bench.Profile      `json:"profile"`
		Values        map[string]float64 `json:"values"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return result{}, fmt.Errorf("servetune result: %w", err)
	}
	if r.SchemaVersion != bench.SchemaVersion {
		return result{}, fmt.Errorf("servetune result schema_version %d; this servetune reads %d", r.SchemaVersion, bench.SchemaVersion)
	}
	out := result{values: map[string]float64{}, profile: r.Profile}
	for k, v := range r.Values {
		if err := valueProblem(k, v); err != nil {
			return result{}, err
		}
		if usable(v) {
			out.values[k] = v
		}
	}
	return out, unitProblem(out.values)
}

// vllmNames maps vLLM's result keys to servetune's metric names; the
// percentiles (p50_ttft_ms, p99.9_itl_ms) follow the same scheme with
// e2el renamed e2e.
var vllmNames = map[string]string{
	"request_throughput": "request_tps", "output_throughput": "output_tps", "total_token_throughput": "total_tps",
	"request_goodput": "goodput_rps", "duration": "duration_s",
}

func vllmResult(probe map[string]json.RawMessage) (result, error) {
	out := result{values: map[string]float64{}}
	num := func(k string) (float64, bool) {
		raw, ok := probe[k]
		if !ok {
			return 0, false
		}
		var f float64
		if json.Unmarshal(raw, &f) != nil {
			return 0, false
		}
		return f, true
	}
	for k := range probe {
		name, ok := vllmMetric(k)
		if !ok {
			continue
		}
		v, ok := num(k)
		if !ok && string(probe[k]) != "null" {
			return result{}, &metricError{k, fmt.Sprintf("is %s: a measured metric must be a finite number >= 0", probe[k])}
		}
		if err := valueProblem(k, v); err != nil {
			return result{}, err
		}
		if ok && usable(v) {
			out.values[name] = v
		}
	}
	if err := unitProblem(out.values); err != nil {
		return result{}, err
	}
	p, err := vllmProfile(num, probe["request_rate"])
	if err != nil {
		return result{}, err
	}
	out.profile = p
	return out, nil
}

// vllmProfile is the load a vLLM result ran: random prompts of its mean
// input and output lengths, completed + failed of them, at its rate and
// concurrency.
func vllmProfile(num func(string) (float64, bool), rawRate json.RawMessage) (bench.Profile, error) {
	completed, _ := num("completed")
	failed, _ := num("failed")
	if !(completed >= 1) || completed > 1e9 || failed < 0 || failed > 1e9 {
		return bench.Profile{}, fmt.Errorf("completed = %v: no request completed", completed)
	}
	in, hasIn := num("total_input_tokens")
	if !hasIn {
		in, hasIn = num("total_input") // some forks' spelling
	}
	outTok, hasOut := num("total_output_tokens")
	if !hasOut {
		outTok, hasOut = num("total_output")
	}
	p := bench.Profile{Name: "measured", Dataset: bench.DatasetRandom, NumPrompts: int(completed + failed), RequestRate: math.Inf(1), Seed: 1}
	if hasIn && hasOut && in >= 0 && outTok >= 0 && in < 1e15 && outTok < 1e15 {
		p.InputLen, p.OutputLen = int(math.Round(in/completed)), int(math.Round(outTok/completed))
	}
	if r, ok := rate(rawRate); ok {
		p.RequestRate = r
	}
	if b, ok := num("burstiness"); ok && b > 0 && !math.IsInf(b, 0) {
		p.Burstiness = b
	}
	if c, ok := num("max_concurrency"); ok && c >= 1 && c < 1e9 {
		p.MaxConcurrency = int(c)
	}
	return p, nil
}

// vllmMetric is the servetune name of a vLLM result key.
func vllmMetric(k string) (string, bool) {
	if n, ok := vllmNames[k]; ok {
		return n, true
	}
	for _, m := range []struct{ vllm, ours string }{{"ttft", "ttft"}, {"tpot", "tpot"}, {"itl", "itl"}, {"e2el", "e2e"}} {
		suffix := "_" + m.vllm + "_ms"
		if len(k) <= len(suffix) || k[len(k)-len(suffix):] != suffix {
			continue
		}
		stat := k[:len(k)-len(suffix)]
		switch {
		case stat == "mean" || stat == "median" || stat == "std":
		case len(stat) > 1 && stat[0] == 'p':
			if f, err := strconv.ParseFloat(stat[1:], 64); err != nil || f <= 0 || f >= 100 {
				return "", false
			}
		default:
			return "", false
		}
		return stat + "_" + m.ours + "_ms", true
	}
	return "", false
}

// rate reads request_rate: a number, or the string "inf" vLLM writes
// for an unlimited rate.
func rate(raw json.RawMessage) (float64, bool) {
	var f float64
	if json.Unmarshal(raw, &f) == nil && f > 0 && !math.IsNaN(f) {
		return f, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && (s == "inf" || s == "Infinity") {
		return math.Inf(1), true
	}
	return 0, false
}

func usable(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// jsonError positions a decode error at its line.
func jsonError(file string, src []byte, prefix string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &Error{File: file, Line: lineAt(src, se.Offset), Msg: se.Error()}
	case errors.As(err, &te):
		return &Error{File: file, Line: lineOfKey(src, te.Field), Key: prefix + te.Field, Msg: fmt.Sprintf("want %s, got %s", te.Type, te.Value)}
	}
	return &Error{File: file, Msg: err.Error()}
}

func lineAt(src []byte, off int64) int {
	off = min(max(off, 0), int64(len(src)))
	return bytes.Count(src[:off], []byte("\n")) + 1
}

// lineOfKeyAfter is lineOfKey from offset base on: the key's line within
// one run of an array of runs.
func lineOfKeyAfter(src []byte, base int, key string) int {
	n := lineOfKey(src[base:], key)
	if n == 0 {
		return 0
	}
	return n + bytes.Count(src[:base], []byte("\n"))
}

// lineOfKey is the line of the first "key": in src (the last dotted
// part of key), 0 when absent: the error then names file and key only.
func lineOfKey(src []byte, key string) int {
	if i := bytes.LastIndexByte([]byte(key), '.'); i >= 0 {
		key = key[i+1:]
	}
	if key == "" {
		return 0
	}
	i := bytes.Index(src, []byte(`"`+key+`"`))
	if i < 0 {
		return 0
	}
	return lineAt(src, int64(i))
}

func ioLimit(r io.Reader, n int64) io.Reader { return io.LimitReader(r, n) }
