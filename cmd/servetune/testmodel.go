package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines/gguf"
)

func testmodelCommand(e *env) *cli.Command {
	def := gguf.DefaultLlama()
	return &cli.Command{
		Name:      "testmodel",
		Usage:     "write a tiny llama GGUF model with random weights, to tune Ollama or llama.cpp on a CPU",
		UsageText: "servetune testmodel --out tiny.gguf [--dim N --layers N --ffn N --heads N --kv-heads N --vocab N --seed N]",
		Description: `Writes a GGUF v3 llama model with random F32 weights, the same bytes for the
same flags. Its tokenizer has byte tokens plus pieces for the words of
servetune's text prompts, so a prompt of N words is about N tokens. It never
generates EOS, so every request streams exactly max_tokens tokens, which
makes throughput comparable across configs. Use it as target.model in a
space file with engine = "ollama" (see examples/ollama-cpu.toml).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "file to write (e.g. tiny.gguf)", Required: true},
			&cli.IntFlag{Name: "dim", Value: def.Dim, Usage: "embedding width"},
			&cli.IntFlag{Name: "layers", Value: def.Layers},
			&cli.IntFlag{Name: "ffn", Value: def.FFN, Usage: "feed-forward width"},
			&cli.IntFlag{Name: "heads", Value: def.Heads, Usage: "attention heads"},
			&cli.IntFlag{Name: "kv-heads", Usage: "key/value heads (0 = heads)"},
			&cli.IntFlag{Name: "vocab", Usage: "tokens (0 = specials, 256 bytes and every word piece)"},
			&cli.IntFlag{Name: "context", Value: def.Context, Usage: "training context length"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed},
		},
		Action: func(c *cli.Context) error {
			cfg := gguf.LlamaConfig{Dim: c.Int("dim"), Layers: c.Int("layers"), FFN: c.Int("ffn"),
				Heads: c.Int("heads"), KVHeads: c.Int("kv-heads"), Vocab: c.Int("vocab"),
				Context: c.Int("context"), Seed: c.Uint64("seed")}
			if c.NArg() > 0 {
				return usagef("testmodel takes no arguments, got %q", c.Args().First())
			}
			if err := cfg.Validate(); err != nil {
				return usagef("testmodel: %s", testModelFlags(err.Error()))
			}
			return writeTestModel(c.String("out"), cfg, e)
		},
	}
}

// writeTestModel writes through a temporary file so an interrupted write
// never leaves a truncated model that Ollama would reject later.
func writeTestModel(out string, cfg gguf.LlamaConfig, e *env) error {
	tmp, err := os.CreateTemp(filepath.Dir(out), ".testmodel-*")
	if err != nil {
		return fmt.Errorf("testmodel: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := errors.Join(gguf.WriteTinyLlama(tmp, cfg), tmp.Close()); err != nil {
		return fmt.Errorf("testmodel: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("testmodel: %w", err)
	}
	st, err := os.Stat(out)
	if err != nil {
		return fmt.Errorf("testmodel: %w", err)
	}
	fmt.Fprintf(e.stdout, "wrote %s: llama, %d parameters, %d tokens, %.1f MB\n",
		out, cfg.Parameters(), len(gguf.Tokens(cfg.Vocab).Text), float64(st.Size())/1e6)
	return nil
}

// testModelField are gguf.LlamaConfig's names for the config's fields, in
// its errors ("kv heads" before "heads").
var testModelField = regexp.MustCompile(`\b(kv heads|dim|layers|ffn|heads|vocab|context)\b`)

// testModelFlags names the flags in the config's errors: "dim 256 must be
// divisible by heads 3" is --dim and --heads (a refusal named the
// struct's fields, not the flags typed).
func testModelFlags(msg string) string {
	msg = strings.TrimPrefix(msg, "llama config: ")
	return testModelField.ReplaceAllStringFunc(msg, func(f string) string { return "--" + strings.ReplaceAll(f, " ", "-") })
}
