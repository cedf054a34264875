package lab

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
)

func TestZZDebug(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("SEED"))
	land := os.Getenv("LAND")
	sp, _ := Load(land)
	sp.Objectives = sp.Objectives[:1]
	ctx := context.Background()
	truthO := NewOracleOn(sp, Perturb(sim.DefaultCards(), int64(seed)))
	priorO := NewOracle(sp)
	RestoreAll("/tmp/prior-cache", truthO, priorO)
	grid, _ := truthO.Exhaust(ctx)
	var vals []float64
	obj := sp.Objectives[0]
	for _, oc := range grid.Outcomes {
		if oc.err == nil {
			vals = append(vals, oc.metrics[obj.Metric])
		}
	}
	sort.Float64s(vals)
	if obj.Metric == "total_tps" {
		sort.Sort(sort.Reverse(sort.Float64Slice(vals)))
	}
	opt := vals[0]
	n1 := 0
	for _, v := range vals {
		if math.Abs(v/opt-1) <= 0.01 {
			n1++
		}
	}
	for i, oc := range grid.Outcomes {
		if oc.err == nil && oc.metrics[obj.Metric] == vals[0] {
			pv, _ := oraclePrior{o: priorO, sp: sp}.Predict(grid.Configs[i])
			fmt.Printf("OPT pred %v %s\n", pv, grid.Configs[i].Summary())
			break
		}
	}
	fmt.Printf("optimum %.4f, %d configs within 1%%, top10 %v\n", opt, n1, vals[:10])
	s, _ := search.NewSampler("motpe", sp, int64(seed), nil, zerolog.Nop(), search.Options{Prior: oraclePrior{o: priorO, sp: sp}})
	for i := 0; i < 20; i++ {
		cs, _ := s.Ask(1, nil)
		c := sp.WithTargetEngine(cs[0])
		out := truthO.Eval(ctx, c)
		pv, _ := oraclePrior{o: priorO, sp: sp}.Predict(c)
		o := search.Observation{Config: c, State: search.Complete}
		if out.err != nil {
			o.State, o.Class, o.Value = search.Infeasible, "oom", math.NaN()
			fmt.Printf("%2d INFEASIBLE %s\n", i+1, c.Summary())
		} else {
			f := noiseFactor(int64(seed)*1_000_003+int64(i+1), 0.05)
			v := out.metrics[obj.Metric]
			m := noisy(out.metrics, f)[obj.Metric]
			o.Value, o.Values = m, []float64{m}
			fmt.Printf("%2d true %.4f (%.1f%%) meas %.4f pred %v  %s\n", i+1, v, 100*(v/opt-1), m, pv, c.Summary())
		}
		s.Tell(o)
	}
	PersistAll("/tmp/prior-cache", truthO, priorO)
}
