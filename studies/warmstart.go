package studies

import (
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// WarmStart is what an earlier study (old, its trials) offers a new one
// (sp) to run first: the old report's winners, each cut to the knobs sp
// has (and its engine, when sp's target names one), so a winner from a
// wider or older space is still a config of this one.
func WarmStart(old *space.Space, trials []store.Trial, sp *space.Space) []space.Config {
	var out []space.Config
	for _, w := range BuildReport(old, trials, nil).Winners {
		c := space.Config{}
		for k, v := range w.Config {
			if _, ok := sp.Param(k); ok || (k == "engine" && sp.Target.Engine != "") {
				c[k] = v
			}
		}
		out = append(out, c)
	}
	return out
}
