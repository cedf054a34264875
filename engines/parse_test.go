package engines

import (
	"strings"

	"github.com/servetune/servetune/space"
)

// parse reads an engine's flags back into a config; an argument outside
// the knob table is an error. The engine version is the newest known.
func parse(engine string, args []string) (space.Config, error) {
	p, err := ParseArgs(engine, args, Latest())
	if err != nil {
		return nil, err
	}
	if len(p.Extra) > 0 {
		return nil, invalid("%s: arguments outside the knob table: %s", engine, strings.Join(p.Extra, " "))
	}
	return p.Config, nil
}
