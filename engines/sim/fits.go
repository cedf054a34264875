package sim

import (
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// Fits is the startup half of Evaluate: nil when the imitated engine
// would start the config on the target, otherwise its refusal (an
// *engines.Failure, out of memory or invalid config). It costs no
// benchmark, so a calibration can ask it of every trial of a study.
func (sm *Simulator) Fits(cfg space.Config, t space.Target) error {
	if engines.IsPD(cfg) {
		_, err := sm.resolvePD(cfg, t) // both sides' memory plans
		return err
	}
	s, err := resolve(sm.Cards, cfg, t)
	if err != nil {
		return err
	}
	_, err = s.plan()
	return err
}
