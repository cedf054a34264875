//go:build unix

package lab

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/servetune/servetune/internal/cputime"
	"github.com/servetune/servetune/search/samplers"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
)

// BenchmarkPriorOverhead500 is the simulator prior's CPU cost per
// proposal over a 500-trial two-objective study of the GLM-5.2 space
// (docs/benchmarks.md): the random sampler decorated by the prior the
// study would get, each trial "measured" by the full simulation outside
// the count. It reports the start-up screening, the mean and the worst
// CPU seconds of one Ask + Tell.
func BenchmarkPriorOverhead500(b *testing.B) {
	sp, err := Load("glm52")
	if err != nil {
		b.Fatal(err)
	}
	const trials = 500
	measure := simprior.New(sp, sim.DefaultCards())
	for range b.N {
		start := cputime.Process()
		s, err := samplers.New(context.Background(), "random", sp, 1, nil, zerolog.Nop(), search.Options{Prior: simprior.New(sp, sim.DefaultCards())})
		if err != nil {
			b.Fatal(err)
		}
		startup := cputime.Process() - start
		var total, worst time.Duration
		for range trials {
			t0 := cputime.Process()
			cs, err := s.Ask(context.Background(), 1, nil)
			if err != nil {
				b.Fatal(err)
			}
			mid := cputime.Process()
			o := search.Observation{Config: cs[0], State: search.Complete}
			if v, ok := measure.Predict(context.Background(), sp.WithTargetEngine(cs[0])); ok {
				o.Value, o.Values = v[0], v
			} else {
				o.State, o.Class, o.Value = search.Infeasible, "oom", math.NaN()
			}
			t1 := cputime.Process()
			if err := s.Tell(context.Background(), o); err != nil {
				b.Fatal(err)
			}
			spent := mid - t0 + cputime.Process() - t1
			total += spent
			worst = max(worst, spent)
		}
		b.ReportMetric(startup.Seconds(), "startup-cpu-s")
		b.ReportMetric(total.Seconds()/trials, "cpu-s/proposal")
		b.ReportMetric(worst.Seconds(), "worst-cpu-s/proposal")
	}
}
