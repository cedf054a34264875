package main

import (
	"fmt"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim/simserve"
	"github.com/urfave/cli/v2"
)

// simCommand groups the simulator's subcommands; `sim serve` runs it as a
// fake engine that the adapters can launch in place of the real binary.
func simCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "sim",
		Usage: "the built-in simulator",
		Subcommands: append([]*cli.Command{{
			Name:      "serve",
			Usage:     "serve the simulator as an OpenAI-compatible engine that takes the imitated engine's own flags",
			ArgsUsage: "-- ENGINE-FLAGS...",
			Description: "Example: servetune sim serve --engine sglang --gpu H200 --gpus 8 --speed 10 -- \\\n" +
				"    --model-path zai-org/GLM-5.2-FP8 --tp-size=8 --mem-fraction-static=0.85\n\n" +
				"The engine's --host/--port win over --host/--port here. A config the engine would refuse\n" +
				"prints the engine's error lines and exits 1. SIGTERM stops it.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "engine", Required: true, Usage: "engine to imitate: vllm | sglang | trtllm"},
				&cli.StringFlag{Name: "gpu", Usage: "GPU card, e.g. H200, H100, A100-80GB (required but for --role router)"},
				&cli.StringFlag{Name: "role", Usage: "role in a disaggregated deployment: prefill | decode (when the engine's flags leave it open) | router (the engine's router, taking the router's flags)"},
				&cli.IntFlag{Name: "gpus", Value: 1, Usage: "GPUs on the node"},
				&cli.StringFlag{Name: "model", Usage: "model card, when the engine's checkpoint argument is not one"},
				&cli.Float64Flag{Name: "speed", Value: 1, Usage: "run simulated time this many times faster than real time"},
				&cli.DurationFlag{Name: "startup", Usage: "simulated launch → ready time (default: the simulator's estimate from weights, CUDA graphs, compile)"},
				&cli.StringFlag{Name: "host", Value: "127.0.0.1"},
				&cli.IntFlag{Name: "port", Usage: "default: the engine's own (8000, SGLang 30000)"},
				&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the measurement noise"},
				&cli.Float64Flag{Name: "noise-cv", Usage: "measurement noise, coefficient of variation (0 = none)"},
				&cli.StringFlag{Name: "cards", Usage: "TOML `FILE` of extra model/GPU cards (servetune card output)"},
			},
			Action: func(c *cli.Context) error { return e.simServe(c) },
		}}, simFidelityCommands(e)...),
	}
}

func (e *env) simServe(c *cli.Context) error {
	engine := c.String("engine")
	if !simserve.Serves(engine) {
		return usagef("--engine must be vllm, sglang or trtllm, not %q", engine)
	}
	switch c.String("role") {
	case "":
	case engines.RoleRouter:
		return simRouter(c, engine, e)
	case engines.RolePrefill, engines.RoleDecode:
		if !engines.ServesPD(engine) {
			return usagef("--role %s: %s", c.String("role"), onlyPD())
		}
	default:
		return usagef("--role must be prefill, decode or router, not %q", c.String("role"))
	}
	if c.String("gpu") == "" {
		return usagef("--gpu is required")
	}
	if c.Float64("speed") <= 0 {
		return usagef("--speed must be > 0, not %v", c.Float64("speed"))
	}
	if c.Int("gpus") < 1 {
		return usagef("--gpus must be ≥ 1, not %d", c.Int("gpus"))
	}
	if p := c.Int("port"); p < 0 || p > 65535 {
		// Found at listen, after the engine's start-up lines (exit 1).
		return usagef("--port must be a TCP port between 1 and 65535 (0: the engine's own), not %d", p)
	}
	cards, err := loadCardsFlag(c.String("cards"))
	if err != nil {
		return err
	}
	if _, err := cards.GPU(c.String("gpu")); err != nil {
		return usagef("--gpu: %v", err)
	}
	err = simserve.Serve(c.Context, simserve.Options{
		Engine: engine, GPU: c.String("gpu"), GPUs: c.Int("gpus"), Model: c.String("model"),
		Speed: c.Float64("speed"), Startup: c.Duration("startup"), Seed: c.Int64("seed"), NoiseCV: c.Float64("noise-cv"),
		Host: c.String("host"), Port: c.Int("port"), Args: c.Args().Slice(), Log: e.stderr, Cards: cards, Role: c.String("role"),
	})
	if f, ok := engines.AsFailure(err); ok {
		// The engine's own lines are on stderr already and must alone decide
		// the launcher's classification, so this line repeats none of them.
		return fmt.Errorf("simulated %s failed at startup (%s); the engine's log lines are above", engine, f.Class)
	}
	return err
}

// onlyPD says which engines serve disaggregated (engines.PDEngines).
func onlyPD() string {
	return "only " + strings.Join(engines.PDEngines(), " and ") + " serve disaggregated"
}

// simRouter runs the engine's router of a disaggregated deployment.
func simRouter(c *cli.Context, engine string, e *env) error {
	if !engines.ServesPD(engine) {
		return usagef("--role router: %s", onlyPD())
	}
	err := simserve.ServeRouter(c.Context, simserve.RouterOptions{Engine: engine, Args: c.Args().Slice(), Log: e.stderr})
	if _, ok := engines.AsFailure(err); ok {
		return fmt.Errorf("simulated %s router failed at startup; its log line is above", engine)
	}
	return err
}
