package main

import (
	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/bench"
)

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

var traceFlagNames = []string{"trace-format", "speedup", "trace-start", "trace-duration", "sample", "block-tokens"}

// applyTrace sets the trace table from its flags. A trace's lengths and
// arrivals are its own, so the random dataset's defaults are cleared and
// --num-prompts, when given, caps the requests; a trace flag needs
// --dataset trace.
func applyTrace(c *cli.Context, p *bench.Profile) error {
	if p.DatasetName() != bench.DatasetTrace {
		for _, name := range traceFlagNames {
			if c.IsSet(name) {
				return usagef("--%s needs --dataset trace", name)
			}
		}
		return nil
	}
	for _, name := range []string{"input-len", "output-len", "range-ratio", "prefix-len", "request-rate", "burstiness"} {
		if c.IsSet(name) {
			return usagef("--%s does not apply to --dataset trace (the trace gives lengths and arrivals; --speedup scales them)", name)
		}
	}
	p.InputLen, p.OutputLen, p.RequestRate, p.Burstiness = 0, 0, 0, 0
	if !c.IsSet("num-prompts") {
		p.NumPrompts = 0
	}
	p.Trace = &bench.Trace{Format: c.String("trace-format"), Speedup: c.Float64("speedup"), Start: c.Duration("trace-start"),
		Duration: c.Duration("trace-duration"), Sample: c.Float64("sample"), BlockTokens: c.Int("block-tokens")}
	return nil
}

// traceFlagOfKey names the flag of each trace table key.
var traceFlagOfKey = map[string]string{
	"trace.format": "--trace-format", "trace.speedup": "--speedup", "trace.start": "--trace-start",
	"trace.duration": "--trace-duration", "trace.sample": "--sample", "trace.block_tokens": "--block-tokens",
	"dataset_path": "--dataset-path",
}
