//go:build unix

package simprior_test

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
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// BenchmarkQuickstartPrior is issue 49's prior target on the README's
// quickstart space: the start-up screening (≤ 3 s CPU) and the CPU of
// one Ask + Tell of the prior-decorated MOTPE (≤ 0.2 s), over the
// study's 60 trials, each "measured" by a fresh noiseless prediction
// outside the count (a study measures with noise; the prior's work per
// proposal is the same kind).
func BenchmarkQuickstartPrior(b *testing.B) {
	ctx := context.Background()
	sp, err := space.Load(ctx, "../../examples/quickstart.toml", studies.SpaceOptions(nil))
	if err != nil {
		b.Fatal(err)
	}
	measure := simprior.New(sp, sim.DefaultCards())
	for range b.N {
		start := cputime.Process()
		s, err := samplers.New(ctx, sp.Study.Sampler, sp, sp.Study.Seed, nil, zerolog.Nop(), search.Options{Prior: simprior.New(sp, sim.DefaultCards())})
		if err != nil {
			b.Fatal(err)
		}
		startup := cputime.Process() - start
		var total, worst time.Duration
		for range sp.Study.NTrials {
			t0 := cputime.Process()
			cs, err := s.Ask(ctx, 1, nil)
			if err != nil {
				b.Fatal(err)
			}
			mid := cputime.Process()
			o := search.Observation{Config: cs[0], State: search.Complete}
			if v, ok := measure.Predict(ctx, sp.WithTargetEngine(cs[0])); ok {
				o.Value, o.Values = v[0], v
			} else {
				o.State, o.Class, o.Value = search.Infeasible, "oom", math.NaN()
			}
			t1 := cputime.Process()
			if err := s.Tell(ctx, o); err != nil {
				b.Fatal(err)
			}
			spent := mid - t0 + cputime.Process() - t1
			total += spent
			worst = max(worst, spent)
		}
		b.ReportMetric(startup.Seconds(), "startup-cpu-s")
		b.ReportMetric(total.Seconds()/float64(sp.Study.NTrials), "cpu-s/proposal")
		b.ReportMetric(worst.Seconds(), "worst-cpu-s/proposal")
	}
}
