package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/servetune/servetune/internal/suggest"
)

// RefusedValue says why the simulator cannot run a knob value whatever the
// other knobs, so a simulated study refuses it at load (space's
// Options.RefusedValue) rather than failing or inventing every trial that
// draws it: an attention_backend it does not model failed every such trial
// "not simulated" (exit 3), and a speculative_draft_model with no draft
// card ran on a made-up draft (2% of the model, acceptance 0.6), numbers
// no card or measurement backs. nil for values it simulates and for other
// knobs.
func (c *Cards) RefusedValue(knob string, v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	switch knob {
	case "model_variant":
		// setup reads fp8, bf16, fp16 and auto (any case); another failed
		// every trial that drew it, "the simulator knows FP8 and BF16".
		known := []string{"bf16", "fp8", "fp16", "auto"}
		if s != "default" && !slices.Contains(known, strings.ToLower(s)) {
			return fmt.Errorf("model_variant %q is not simulated%s (simulated: %s)", s, suggest.Hint(s, known), strings.Join(known, ", "))
		}
	case "attention_backend":
		if _, ok := attentionBackends[s]; !ok {
			known := slices.Sorted(maps.Keys(attentionBackends))
			return fmt.Errorf("attention_backend %q is not simulated%s (simulated: %s)", s, suggest.Hint(s, known), strings.Join(known, ", "))
		}
	case "speculative_draft_model":
		if s == "" || s == "none" || s == "default" {
			return nil
		}
		if _, ok := c.Draft(s); !ok {
			var known []string
			for _, d := range c.Drafts {
				known = append(known, d.Name)
			}
			return fmt.Errorf("no draft card %q%s (known: %s); add a [[draft]] card for it to the cards file (target.sim.cards) to simulate it", s, suggest.Hint(s, known), strings.Join(known, ", "))
		}
	}
	return nil
}
