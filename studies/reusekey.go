package studies

import (
	"encoding/json"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// RenderedKey (RunOptions.ReuseKey) makes the study loop reuse a measurement for any config
// whose engine command (argv, environment, generated files, setup)
// equals a measured one's: a knob at its engine default and the same knob
// absent launch the same server. A config that does not render keys on
// itself, so its own failure is measured once. The gpu knob renders no
// flag but moves the trial to another GPU type, so it is part of the key
// (a key without it is unchanged, as stored studies hold it).
func RenderedKey(t space.Target) func(space.Config) string {
	rendered := renderedKey(t)
	return func(c space.Config) string {
		if c.Has(space.KnobGPU) {
			return "on " + t.GPUOf(c) + " " + rendered(c)
		}
		return rendered(c)
	}
}

func renderedKey(t space.Target) func(space.Config) string {
	return func(c space.Config) string {
		d, err := engines.Deploy(c, t)
		if err != nil {
			return "config " + c.Key()
		}
		if d.PD != nil {
			return "deployment " + d.Key()
		}
		b, err := json.Marshal(d.Command)
		if err != nil {
			return "config " + c.Key()
		}
		return "command " + string(b)
	}
}
