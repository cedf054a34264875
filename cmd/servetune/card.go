package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/servetune/servetune/engines/sim"
	"github.com/urfave/cli/v2"
)

// cardCommand builds a simulator model card from a Hugging Face
// config.json, so the simulator (and the prior) cover models without a
// built-in card.
func cardCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "card",
		Usage:     "build a simulator model card from a Hugging Face config.json",
		ArgsUsage: "MODEL_DIR_OR_CONFIG_JSON",
		Description: "Prints a [[model]] TOML card (layers, hidden size, heads, KV heads, experts and shared experts,\n" +
			"active experts, MLA ranks, sliding-window/chunked/linear attention layers, the weight dtype and\n" +
			"bits of FP8/AWQ/GPTQ/compressed-tensors/ModelOpt checkpoints, derived parameter counts) for\n" +
			"`run --cards`, `[target.sim] cards`, `sim serve --cards`, `calibrate --cards` and `lab --cards`.\n" +
			"--max-model-len sets the context the KV cache is planned for (the server's --max-model-len);\n" +
			"without it the config's max_position_embeddings is used, or 32768 where that is over 1M tokens. Example:\n" +
			"  servetune card ~/models/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic --max-model-len 131072 --out cards.toml",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "card name (default: the config's _name_or_path, else the directory name)"},
			&cli.StringSliceFlag{Name: "alias", Usage: "another name the card answers to (repeatable)"},
			&cli.StringFlag{Name: "out", Usage: "write the card to this file instead of stdout"},
			&cli.IntFlag{Name: "max-model-len", Usage: "the context length the server runs with (vLLM --max-model-len, SGLang --context-length), at most the config's max_position_embeddings"},
		},
		Action: func(c *cli.Context) error { return e.card(c) },
	}
}

func (e *env) card(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("card takes one MODEL_DIR_OR_CONFIG_JSON, got %d arguments", c.NArg())
	}
	if c.IsSet("max-model-len") && c.Int("max-model-len") == 0 {
		// 0 read as the flag left out: the config's own context planned.
		return usagef("--max-model-len 0 plans no context: give the server's --max-model-len, or leave the flag out for the config's")
	}
	path := c.Args().First()
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "config.json")
	}
	f, err := os.Open(path)
	if err != nil {
		return usageError{fmt.Errorf("card: %w", err)} // the argument names no readable file
	}
	defer f.Close()
	name := c.String("name")
	m, err := sim.CardFromHFConfig(name, f)
	if err != nil && name == "" {
		// No _name_or_path: name the card after the model directory.
		if _, serr := f.Seek(0, 0); serr == nil {
			m, err = sim.CardFromHFConfig(sim.DefaultCardName(path), f)
		}
	}
	if err != nil {
		return usageError{fmt.Errorf("card %s: %w", path, err)}
	}
	note, err := sim.PlanContext(&m, c.Int("max-model-len"))
	if err != nil {
		return usageError{err}
	}
	if note != "" {
		fmt.Fprintf(e.stderr, "card: %s\n", note)
	}
	m.Aliases = c.StringSlice("alias")
	var buf bytes.Buffer
	if err := sim.CardTOML(&buf, m); err != nil {
		return fmt.Errorf("card: %w", err)
	}
	if out := c.String("out"); out != "" {
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("card: %w", err)
		}
		return nil
	}
	_, err = e.stdout.Write(buf.Bytes())
	return err
}
