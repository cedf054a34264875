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
		Description: "Prints a [[model]] TOML card (layers, hidden size, heads, KV heads, experts, active experts,\n" +
			"dtype, derived parameter counts) for --cards or [target.sim] cards. Example:\n" +
			"  servetune card ~/models/Qwen3-8B --name Qwen/Qwen3-8B --out cards.toml",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "card name (default: the config's _name_or_path, else the directory name)"},
			&cli.StringSliceFlag{Name: "alias", Usage: "another name the card answers to (repeatable)"},
			&cli.StringFlag{Name: "out", Usage: "write the card to this file instead of stdout"},
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
			m, err = sim.CardFromHFConfig(filepath.Base(filepath.Dir(path)), f)
		}
	}
	if err != nil {
		return fmt.Errorf("card %s: %w", path, err)
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
