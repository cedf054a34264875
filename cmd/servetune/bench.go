package main

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/bench"
)

// benchOptions is everything `servetune bench` was asked to do.
type benchOptions struct {
	client      bench.Client
	profile     bench.Profile
	summary     bench.SummaryOptions
	text        bench.TextOptions
	jsonPath    string
	fromRecords string
	run         bench.RunOptions
}

func benchCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "benchmark a running OpenAI-compatible server (vllm bench serve metrics)",
		UsageText: "servetune bench --base-url URL --model NAME [--profile NAME | --dataset random|sharegpt|jsonl|shared_prefix|trace ...] [--stages RATE:DURATION,...] [--json FILE]",
		Description: "Sends a profile's requests (streaming /v1/completions or /v1/chat/completions) and prints the\n" +
			"\"Serving Benchmark Result\" block. Built-in profiles: " + strings.Join(bench.BuiltinNames(), ", ") + ".\n" +
			"Flags given with --profile override that profile's fields. --json FILE writes every metric to FILE and\n" +
			"the per-request records to FILE's name with .records.jsonl; --from-records recomputes from such a file.\n" +
			"Exit codes: 0 ok, 1 no request succeeded, 2 bad flags or dataset, 130 interrupted.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "base-url", Usage: "server root, e.g. http://127.0.0.1:8000"},
			&cli.StringFlag{Name: "model", Usage: "model name sent in each request"},
			&cli.StringFlag{Name: "endpoint", Value: bench.EndpointCompletions, Usage: "completions | chat"},
			&cli.StringFlag{Name: "profile", Usage: "built-in profile name"},
			&cli.StringFlag{Name: "dataset", Value: bench.DatasetRandom, Usage: "random | sharegpt | jsonl | shared_prefix (inference-perf's: --num-unique-system-prompts ...) | trace (--dataset-path FILE, --speedup ...)"},
			&cli.StringFlag{Name: "dataset-path", Usage: "ShareGPT JSON, JSONL or trace file (sharegpt without a file uses the built-in synthetic lengths)"},
			&cli.IntFlag{Name: "input-len", Value: 1024, Usage: "random: prompt tokens"},
			&cli.IntFlag{Name: "output-len", Value: 128, Usage: "random: max_tokens; sharegpt: overrides the reply length"},
			&cli.Float64Flag{Name: "range-ratio", Usage: "random: lengths uniform in [L(1-r), L(1+r)]"},
			&cli.IntFlag{Name: "prefix-len", Usage: "random: shared prefix tokens"},
			&cli.IntFlag{Name: "num-prompts", Value: 1000},
			&cli.StringFlag{Name: "request-rate", Value: "inf", Usage: "requests per second, or inf"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "cap on requests in flight (0 = none)"},
			&cli.Float64Flag{Name: "burstiness", Value: 1, Usage: "gamma shape of arrivals; 1 = Poisson"},
			&cli.Int64Flag{Name: "seed"},
			&cli.IntFlag{Name: "warmup", Usage: "warm-up requests, excluded from the metrics"},
			&cli.DurationFlag{Name: "max-duration", Usage: "whole-benchmark deadline (0 = none)"},
			&cli.DurationFlag{Name: "request-timeout", Usage: "per-request bound (0 = derived from the output length: 5 stall timeouts plus 1s a token; negative = none)"},
			&cli.DurationFlag{Name: "stall-timeout", Value: bench.DefaultStallTimeout,
				Usage: "fail a request that receives no byte for this long, counted from its send (negative = never)"},
			&cli.BoolFlag{Name: "text-prompts", Usage: "send prompts as text (servers that reject token ids, e.g. Ollama)"},
			&cli.BoolFlag{Name: "no-ignore-eos", Usage: "do not send ignore_eos (servers that reject it)"},
			&cli.StringFlag{Name: "api-key-env", Usage: "environment variable holding the API key (the key is never printed)"},
			&cli.StringSliceFlag{Name: "header", Usage: "extra request header 'Name: value' (repeatable)"},
			&cli.StringFlag{Name: "percentiles", Value: "95,99", Usage: "percentiles to report"},
			&cli.StringFlag{Name: "goodput", Usage: "SLOs in ms for goodput, e.g. ttft:500,tpot:50,e2el:10000"},
			&cli.StringFlag{Name: "format", Value: string(bench.LayoutFull), Usage: "result block layout: full | vllm"},
			&cli.StringFlag{Name: "json", Usage: "write metrics JSON here and records JSONL beside it"},
			&cli.StringFlag{Name: "from-records", Usage: "recompute metrics from a records JSONL instead of sending requests"},
		}, append(sharedPrefixFlags(), traceFlags()...)...),
		Action: func(c *cli.Context) error {
			opts, err := benchOptionsFrom(c)
			if err != nil {
				return err
			}
			return runBench(c, opts, e)
		},
	}
}

// benchOptionsFrom turns flags into options; every problem is a usage error.
func benchOptionsFrom(c *cli.Context) (benchOptions, error) {
	var o benchOptions
	var err error
	if o.summary.Percentiles, err = parsePercentiles(c.String("percentiles")); err != nil {
		return o, err
	}
	if o.summary.Goodput, err = parseGoodput(c.String("goodput")); err != nil {
		return o, err
	}
	o.text = bench.TextOptions{Layout: bench.Layout(c.String("format")), Percentiles: o.summary.Percentiles}
	if l := o.text.Layout; l != bench.LayoutFull && l != bench.LayoutVLLM {
		return o, usagef("--format must be full or vllm, not %q", l)
	}
	o.jsonPath = c.String("json")
	if o.fromRecords = c.String("from-records"); o.fromRecords != "" {
		return o, nil
	}
	if o.profile, err = profileFrom(c); err != nil {
		return o, err
	}
	o.client = bench.Client{BaseURL: c.String("base-url"), Model: c.String("model"), APIKeyEnv: c.String("api-key-env")}
	if o.client.BaseURL == "" || o.client.Model == "" {
		return o, usagef("--base-url and --model are required")
	}
	if err := checkBaseURL(o.client.BaseURL); err != nil {
		return o, err
	}
	for _, h := range c.StringSlice("header") {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return o, usagef("--header %q: want 'Name: value'", h)
		}
		if o.client.Headers == nil {
			o.client.Headers = map[string]string{}
		}
		o.client.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	o.run = bench.RunOptions{Summary: o.profile.Summary(o.summary), RequestTimeout: c.Duration("request-timeout"),
		StallTimeout: c.Duration("stall-timeout")}
	return o, nil
}

// profileFrom starts from --profile (or an empty custom profile) and
// applies every flag the user set, so `--profile sharegpt --num-prompts 50`
// does what it says.
func profileFrom(c *cli.Context) (bench.Profile, error) {
	p := bench.Profile{Name: "custom", Dataset: bench.DatasetRandom, InputLen: 1024, OutputLen: 128,
		NumPrompts: 1000, RequestRate: math.Inf(1)}
	if name := c.String("profile"); name != "" {
		var ok bool
		if p, ok = bench.Lookup(name); !ok {
			return p, usagef("--profile %q: not a built-in profile (%s)", name, strings.Join(bench.BuiltinNames(), ", "))
		}
	}
	set := func(name string, apply func()) {
		if c.IsSet(name) {
			apply()
		}
	}
	set("dataset", func() { p.Dataset = c.String("dataset") })
	set("dataset-path", func() { p.DatasetPath = c.String("dataset-path") })
	set("input-len", func() { p.InputLen = c.Int("input-len") })
	set("output-len", func() { p.OutputLen = c.Int("output-len") })
	set("range-ratio", func() { p.RangeRatio = c.Float64("range-ratio") })
	set("prefix-len", func() { p.PrefixLen = c.Int("prefix-len") })
	set("num-prompts", func() { p.NumPrompts = c.Int("num-prompts") })
	set("max-concurrency", func() { p.MaxConcurrency = c.Int("max-concurrency") })
	set("burstiness", func() { p.Burstiness = c.Float64("burstiness") })
	set("seed", func() { p.Seed = c.Int64("seed") })
	set("warmup", func() { p.Warmup = c.Int("warmup") })
	set("max-duration", func() { p.MaxDuration = c.Duration("max-duration") })
	set("endpoint", func() { p.Endpoint = c.String("endpoint") })
	set("text-prompts", func() { p.TextPrompts = c.Bool("text-prompts") })
	set("no-ignore-eos", func() { p.NoIgnoreEOS = c.Bool("no-ignore-eos") })
	if c.IsSet("request-rate") {
		r, err := strconv.ParseFloat(c.String("request-rate"), 64)
		if err != nil {
			return p, usagef("--request-rate %q: want a number of requests per second or inf", c.String("request-rate"))
		}
		p.RequestRate = r
	}
	if p.DatasetName() == bench.DatasetRandom && p.DatasetPath != "" {
		return p, usagef("--dataset-path needs --dataset sharegpt or jsonl")
	}
	if err := applyWorkload(c, &p); err != nil {
		return p, err
	}
	if err := applyTrace(c, &p); err != nil {
		return p, err
	}
	return p, profileProblems(p)
}

func parsePercentiles(s string) ([]float64, error) {
	var ps []float64
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := strconv.ParseFloat(f, 64)
		if err != nil || p <= 0 || p >= 100 {
			return nil, usagef("--percentiles: %q is not a percentile in (0, 100)", f)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// parseGoodput reads vllm's --goodput KEY:VALUE list.
func parseGoodput(s string) (bench.SLO, error) {
	var slo bench.SLO
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, ":")
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || ms <= 0 {
			return slo, usagef("--goodput %q: want ttft|tpot|e2el:MILLISECONDS", kv)
		}
		switch k {
		case "ttft":
			slo.TTFTMs = ms
		case "tpot":
			slo.TPOTMs = ms
		case "e2el":
			slo.E2ELMs = ms
		default:
			return slo, usagef("--goodput %q: unknown metric %q (ttft, tpot, e2el)", kv, k)
		}
	}
	return slo, nil
}

func runBench(c *cli.Context, o benchOptions, e *env) error {
	if o.fromRecords != "" {
		return recomputeBench(o, e)
	}
	plan, err := o.profile.Plan() // dataset problems are bad input, found before sending
	if err != nil {
		return usagef("%w", err)
	}
	if f, ok := e.stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		o.run.Progress = terminalProgress(e)
	}
	e.log.Info().Str("profile", o.profile.Name).Int("requests", len(plan.Requests)).Str("url", o.client.BaseURL).Msg("benchmark started")
	res, runErr := bench.RunPlan(c.Context, o.client, plan, o.run)
	if o.run.Progress != nil {
		fmt.Fprintln(e.stderr)
	}
	if runErr != nil && res.Records == nil {
		if errors.Is(runErr, c.Context.Err()) {
			return runErr
		}
		return fmt.Errorf("bench: %w", runErr)
	}
	if err := bench.WriteText(e.stdout, res.Metrics, o.text); err != nil {
		return err
	}
	if err := writeBenchJSON(o.jsonPath, res); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if res.Stopped != "" {
		e.log.Warn().Str("reason", res.Stopped).Msg("benchmark stopped early")
	}
	return noSuccess(res)
}

// noSuccess fails a benchmark in which no request succeeded: its numbers
// describe no serving at all, and scripts must not take them for a result.
func noSuccess(res bench.Result) error {
	m := res.Metrics
	if m.Completed > 0 {
		return nil
	}
	if class, example, n := m.DominantError(); n > 0 {
		return fmt.Errorf("bench: no request succeeded: %d of %d requests failed, %d of them %s: %s",
			m.Failed, m.Failed+m.Aborted, n, class, example)
	}
	if res.Stopped != "" {
		return fmt.Errorf("bench: no request succeeded: %d requests aborted (%s)", m.Aborted, res.Stopped)
	}
	return errors.New("bench: no request succeeded")
}

func recomputeBench(o benchOptions, e *env) error {
	f, err := os.Open(o.fromRecords)
	if err != nil {
		return usagef("--from-records: %w", err)
	}
	defer f.Close()
	saved, err := bench.ReadRecords(f)
	if err != nil {
		return usagef("--from-records %s: %w", o.fromRecords, err)
	}
	m := saved.Metrics(saved.Profile.Summary(o.summary))
	if err := bench.WriteText(e.stdout, m, o.text); err != nil {
		return err
	}
	return writeBenchJSON(o.jsonPath, bench.Result{Profile: saved.Profile, Metrics: m, Records: saved.Records, Duration: saved.Duration})
}

// recordsPath puts the records beside the JSON: out.json → out.records.jsonl.
func recordsPath(jsonPath string) string {
	return strings.TrimSuffix(jsonPath, ".json") + ".records.jsonl"
}

func writeBenchJSON(path string, res bench.Result) error {
	if path == "" {
		return nil
	}
	rp := recordsPath(path)
	if err := writeFile(rp, func(f *os.File) error { return bench.WriteRecords(f, res.Saved()) }); err != nil {
		return err
	}
	return writeFile(path, func(f *os.File) error { return bench.WriteJSON(f, res, rp) })
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench output: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("bench output %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench output %s: %w", path, err)
	}
	return nil
}

// terminalProgress rewrites one stderr line: done/total, failures, elapsed
// and a naive ETA, at most ten times a second.
func terminalProgress(e *env) func(bench.Progress) {
	var last time.Time
	return func(p bench.Progress) {
		if p.Done < p.Total && time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		eta := "?"
		if p.Done > 0 {
			eta = (time.Duration(float64(p.Elapsed) / float64(p.Done) * float64(p.Total-p.Done))).Round(time.Second).String()
		}
		fmt.Fprintf(e.stderr, "\r%d/%d requests  %d failed  elapsed %s  ETA %s   ", p.Done, p.Total, p.Failed,
			p.Elapsed.Round(time.Second), eta)
	}
}

// checkBaseURL refuses a --base-url that is not a server root: a
// password in it, or a query or fragment (which the endpoint's path
// would follow, and which may carry a token), would reach every request
// error and the records. Its errors never quote the URL.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return usagef("--base-url must be a server root, http://HOST[:PORT][/PATH] or https://…")
	case u.User != nil:
		return usagef("--base-url must not carry credentials (user@ or user:password@); give an API key with --api-key-env")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(raw, "?#"):
		return usagef("--base-url must be a server root without ?query or #fragment (the endpoint's path follows it); give an API key with --api-key-env")
	}
	return nil
}
