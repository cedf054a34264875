package simserve

import (
	"fmt"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
)

// extraFlag is an engine argument outside the knob table.
type extraFlag struct {
	value bool // takes a value
	// set records what the flag changes in the simulation; nil for a
	// no-op (logging, parsers, tokenizer, paths: no effect on timing).
	set func(l *sim.Launch, v string) error
}

// noop flags take the listed arity and change nothing simulated.
func noops(fs map[string]extraFlag, value bool, names ...string) {
	for _, n := range names {
		fs[n] = extraFlag{value: value}
	}
}

// extraFlags are the imitated engine's (newest version's) arguments the
// knob table does not read; docs/sim.md lists them.
func extraFlags(engine string) map[string]extraFlag {
	fs := map[string]extraFlag{}
	if im, ok := imitationOf(engine); ok {
		im.flags(fs)
	}
	return fs
}

// readExtra applies the arguments ParseArgs left over; those the engine
// does not know are returned as it would report them.
func readExtra(engine string, extra []string) (sim.Launch, []string, error) {
	var l sim.Launch
	var unknown []string
	fs := extraFlags(engine)
	for i := 0; i < len(extra); i++ {
		name, val, hasEq := strings.Cut(extra[i], "=")
		f, ok := fs[name]
		if !ok {
			unknown = append(unknown, extra[i])
			continue
		}
		if f.value && !hasEq {
			if i+1 >= len(extra) {
				return l, nil, fmt.Errorf("%s: argument %s: expected one argument", engine, name)
			}
			i++
			val = extra[i]
		}
		if f.set != nil {
			if err := f.set(&l, val); err != nil {
				return l, nil, fmt.Errorf("%s: argument %s: %w", engine, name, err)
			}
		}
	}
	return l, unknown, nil
}

func setMaxLen(l *sim.Launch, v string) error {
	if v == "auto" || v == "-1" {
		l.MaxModelLen = -1
		return nil
	}
	n, err := humanInt(v)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("invalid value %q: must be positive", v)
	}
	l.MaxModelLen = n
	return nil
}

// humanInt reads vLLM's human-readable ints (engines.HumanInt, which
// the vLLM adapter's parser uses too).
func humanInt(v string) (int, error) { return engines.HumanInt(v) }

// launchFailure wraps an argument error as the engine's refusal.
func launchFailure(err error) error {
	return &engines.Failure{Class: engines.InvalidConfig, Message: err.Error()}
}
