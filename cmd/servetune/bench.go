package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

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
	if o.summary.Percentiles, err = bench.ParsePercentiles(c.String("percentiles")); err != nil {
		return o, usageError{err}
	}
	if o.summary.Goodput, err = bench.ParseGoodput(c.String("goodput")); err != nil {
		return o, usageError{err}
	}
	o.text = bench.TextOptions{Layout: bench.Layout(c.String("format")), Percentiles: o.summary.Percentiles}
	if l := o.text.Layout; l != bench.LayoutFull && l != bench.LayoutVLLM {
		return o, usagef("--format must be full or vllm, not %q", l)
	}
	o.jsonPath = c.String("json")
	if o.fromRecords = c.String("from-records"); o.fromRecords != "" {
		return o, nil
	}
	if o.profile, err = bench.ProfileFromFlags(c); err != nil {
		return o, usageError{err}
	}
	o.client = bench.Client{BaseURL: c.String("base-url"), Model: c.String("model"), APIKeyEnv: c.String("api-key-env")}
	if o.client.BaseURL == "" || o.client.Model == "" {
		return o, usagef("--base-url and --model are required")
	}
	if err := bench.CheckBaseURL(o.client.BaseURL); err != nil {
		return o, usageError{err}
	}
	if o.client.Headers, err = bench.ParseHeaders(c.StringSlice("header")); err != nil {
		return o, usageError{err}
	}
	if err := o.client.CheckAPIKey(); err != nil {
		return o, usagef("--api-key-env: %w", err)
	}
	if st, err := os.Stat(o.jsonPath); err == nil && st.IsDir() {
		return o, usagef("--json %s is a directory: give the metrics file's path", o.jsonPath)
	}
	o.run = bench.RunOptions{Summary: o.profile.Summary(o.summary), RequestTimeout: c.Duration("request-timeout"),
		StallTimeout: c.Duration("stall-timeout")}
	return o, nil
}

func runBench(c *cli.Context, o benchOptions, e *env) error {
	if o.fromRecords != "" {
		return recomputeBench(o, e)
	}
	plan, err := o.profile.Plan() // dataset problems are bad input, found before sending
	if ke := (*bench.KeyError)(nil); errors.As(err, &ke) {
		return usagef("%s: %v", bench.FlagOfKey(ke.Key), ke.Err)
	}
	if err != nil {
		return usagef("%w", err)
	}
	if f, ok := e.stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		o.run.Progress = bench.TerminalProgress(e.stderr)
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
	if err := bench.WriteResultFiles(o.jsonPath, res); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if res.Stopped != "" {
		e.log.Warn().Str("reason", res.Stopped).Msg("benchmark stopped early")
	}
	return bench.NoSuccess(res)
}

func recomputeBench(o benchOptions, e *env) error {
	res, err := bench.Recompute(o.fromRecords, o.summary)
	if err != nil {
		return usageError{err}
	}
	if err := bench.WriteText(e.stdout, res.Metrics, o.text); err != nil {
		return err
	}
	return bench.WriteResultFiles(o.jsonPath, res)
}

// sharedPrefixFlags are the shared_prefix dataset's table as flags, named
// after its keys (inference-perf's), and --stages.
func sharedPrefixFlags() []cli.Flag {
	sp := func(name, usage string) cli.Flag {
		return &cli.IntFlag{Name: name, Usage: "shared_prefix: " + usage}
	}
	return []cli.Flag{
		sp("num-unique-system-prompts", "system prompts (groups)"),
		sp("num-users-per-system-prompt", "users sharing each system prompt"),
		sp("system-prompt-len", "tokens of each system prompt"),
		sp("question-len", "tokens of each user's question (output length: --output-len)"),
		&cli.BoolFlag{Name: "enable-multi-turn-chat", Usage: "shared_prefix: each user's requests are one conversation, a round sent once the previous one finished"},
		sp("max-model-len", "bound a conversation to the server's context (0 = none)"),
		&cli.StringFlag{Name: "overflow", Usage: "shared_prefix: a conversation past --max-model-len restarts | truncate"},
		&cli.StringFlag{Name: "stages", Usage: "load stages RATE:DURATION,..., e.g. 2.5:10m,6:10m, instead of --num-prompts and --request-rate; metrics per stage and overall"},
	}
}

// traceFlags are the trace dataset's table as flags (docs/space.md,
// *Trace replay*).
func traceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "trace-format", Usage: "trace: mooncake | azure | burstgpt | generic (default: detected from the file)"},
		&cli.Float64Flag{Name: "speedup", Usage: "trace: divide the gaps between arrivals (2 = twice the rate)"},
		&cli.DurationFlag{Name: "trace-start", Usage: "trace: window start, from the trace's first request"},
		&cli.DurationFlag{Name: "trace-duration", Usage: "trace: window length (0 = to the end)"},
		&cli.Float64Flag{Name: "sample", Usage: "trace: keep each request with this probability, seeded (0 = all)"},
		&cli.IntFlag{Name: "block-tokens", Usage: "trace: prompt tokens per prefix hash (default 512, Mooncake's)"},
	}
}
