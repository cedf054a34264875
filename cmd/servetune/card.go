package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	path := c.Args().First()
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "config.json")
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("card: %w", err)
	}
	defer f.Close()
	name := c.String("name")
	m, err := sim.CardFromHFConfig(name, f)
	if err != nil && name == "" {
		// No _name_or_path: name the card after the model directory.
		if _, serr := f.Seek(0, 0); serr == nil {
			m, err = sim.CardFromHFConfig(defaultCardName(path), f)
		}
	}
	if err != nil {
		return usageError{fmt.Errorf("card %s: %w", path, err)}
	}
	if err := e.cardContext(&m, c.Int("max-model-len")); err != nil {
		return err
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

// defaultCardName names a card whose config has no _name_or_path: a
// model directory's config.json after the directory, any other file
// after itself (llama4.json → llama4, not the folder it was saved in).
func defaultCardName(path string) string {
	if base := filepath.Base(path); base != "config.json" {
		return strings.TrimSuffix(base, filepath.Ext(base))
	}
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // ./config.json: the directory's own name, not "."
	}
	return filepath.Base(dir)
}

// longContext is where a config's context stops being what servers run
// with: Llama-4 Scout declares 10M tokens, no KV cache holds that.
const longContext = 1 << 20

// defaultLongContext is the context a card plans for when the config
// declares more than longContext and no --max-model-len is given: the
// 32K a deployment of such a model typically runs with (vLLM's own
// default, the config's maximum, would not start: its KV cache cannot
// hold one 10M-token request).
const defaultLongContext = 32768

// cardContext applies --max-model-len as the card's max_model_len (the
// planned context; max_context stays the config's, the limit of a
// max_model_len knob); without it a context past longContext is planned
// at defaultLongContext, and the command says so.
func (e *env) cardContext(m *sim.ModelCard, maxLen int) error {
	switch {
	case maxLen < 0:
		return usagef("--max-model-len must be positive, got %d", maxLen)
	case maxLen > m.MaxContext && m.MaxContext > 0:
		return usagef("--max-model-len %d is more than the config's max_position_embeddings (%d); servers refuse it", maxLen, m.MaxContext)
	case maxLen > 0:
		m.MaxModelLen = maxLen
	case m.MaxContext > longContext:
		m.MaxModelLen = defaultLongContext
		fmt.Fprintf(e.stderr, "card: %s declares a %d-token context, more than any KV cache holds; the card plans KV for %d tokens (max_model_len). Pass --max-model-len (or set the max_model_len knob) to what the server runs with.\n", m.Name, m.MaxContext, defaultLongContext)
	}
	return nil
}
