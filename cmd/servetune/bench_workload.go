package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/bench"
)

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

// applyWorkload sets the shared_prefix table and the stages from their
// flags; a shared_prefix flag needs --dataset shared_prefix.
func applyWorkload(c *cli.Context, p *bench.Profile) error {
	if p.DatasetName() == bench.DatasetSharedPrefix {
		sp := bench.SharedPrefix{Groups: c.Int("num-unique-system-prompts"), UsersPerGroup: c.Int("num-users-per-system-prompt"),
			SystemPromptLen: c.Int("system-prompt-len"), QuestionLen: c.Int("question-len"), OutputLen: c.Int("output-len"),
			MultiTurn: c.Bool("enable-multi-turn-chat"), MaxModelLen: c.Int("max-model-len"), Overflow: c.String("overflow")}
		p.SharedPrefix, p.InputLen, p.OutputLen = &sp, 0, 0
		for _, name := range []string{"input-len", "prefix-len", "range-ratio"} {
			if c.IsSet(name) {
				return usagef("--%s does not apply to --dataset shared_prefix (its lengths: --system-prompt-len, --question-len, --output-len)", name)
			}
		}
	} else {
		for _, name := range []string{"num-unique-system-prompts", "num-users-per-system-prompt", "system-prompt-len", "question-len",
			"enable-multi-turn-chat", "max-model-len", "overflow"} {
			if c.IsSet(name) {
				return usagef("--%s needs --dataset shared_prefix", name)
			}
		}
	}
	return applyStages(c, p)
}

// applyStages sets --stages, which replaces --num-prompts and
// --request-rate.
func applyStages(c *cli.Context, p *bench.Profile) error {
	if !c.IsSet("stages") {
		return nil
	}
	st, err := bench.ParseStages(c.String("stages"))
	if err != nil {
		return usagef("--stages: %v", err)
	}
	for _, name := range []string{"num-prompts", "request-rate"} {
		if c.IsSet(name) {
			return usagef("--%s and --stages exclude each other: each stage sends rate × duration requests", name)
		}
	}
	p.Stages, p.NumPrompts, p.RequestRate = st, 0, 0
	return nil
}

// profileProblems renders a profile's problems with the flags that set
// them: "shared_prefix.question_len must be > 0" is --question-len.
func profileProblems(p bench.Profile) error {
	probs := p.Problems()
	if len(probs) == 0 {
		return nil
	}
	msgs := make([]string, len(probs))
	for i, pr := range probs {
		msgs[i] = flagOfKey(pr.Key) + " " + pr.Msg
	}
	return usagef("%s", strings.Join(msgs, "; "))
}

func flagOfKey(key string) string {
	if f, ok := traceFlagOfKey[key]; ok {
		return f
	}
	key = strings.TrimPrefix(key, "shared_prefix.")
	if i := strings.IndexAny(key, "[."); i >= 0 {
		key = key[:i] // stages[1].rate → stages
	}
	switch key {
	case "shared_prefix":
		return fmt.Sprintf("--dataset %s", bench.DatasetSharedPrefix)
	case "slo":
		return "--goodput"
	}
	return "--" + strings.ReplaceAll(key, "_", "-")
}
