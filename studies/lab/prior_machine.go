package lab

import (
	"context"

	"github.com/servetune/servetune/space"
)

// The oracle prior on another machine (search.MachinePredictor): the
// prior's cards scaled by a memory probe's scales, simulated by an oracle
// of their own. The oracles are kept by the prior's oracle, so the
// studies of one run share them (the scales are rungs of one ladder), and
// with a lab cache (--cache) they are persisted with it: a machine's
// screening of every candidate costs as much as the rest of a study, and
// the next run (other seeds, the same rungs) asks the same machines about
// mostly the same configs. Each machine's cache file is named by its
// scaled cards (cacheFile), so the scales are in the key and a machine
// never answers for another.

// maxMachines bounds the scaled machines an oracle keeps in memory (each
// may hold a screening of most of the grid); the least recently used is
// persisted and dropped beyond it, and read back when asked again.
const maxMachines = 6

// machines are a prior oracle's oracles on scaled machines, most recently
// used last.
type machines struct {
	keys [][2]float64
	by   map[[2]float64]*Oracle
}

// machine is the prior oracle's oracle on its cards scaled by mem and
// overhead, made (or read back from the oracle's cache) on first use.
func (p oraclePrior) machine(mem, overhead float64) *Oracle {
	return p.o.machine([2]float64{mem, overhead}, func() *Oracle {
		return newOracle(p.o.sp, p.mem.Cards(mem, overhead), p.o.skew)
	})
}

// machine is o's machine of key, made by build when o keeps none.
func (o *Oracle) machine(key [2]float64, build func() *Oracle) *Oracle {
	o.mu.Lock()
	defer o.mu.Unlock()
	ms := &o.machines
	if m := ms.by[key]; m != nil {
		ms.touch(key)
		return m
	}
	if ms.by == nil {
		ms.by = map[[2]float64]*Oracle{}
	}
	if len(ms.keys) >= maxMachines {
		old := ms.keys[0]
		// A failed write only costs a later run the simulations.
		_ = PersistAll(o.dir, ms.by[old])
		delete(ms.by, old)
		ms.keys = ms.keys[1:]
	}
	m := build()
	// A cache that cannot be read is simulated again.
	_ = RestoreAll(o.dir, m)
	ms.by[key] = m
	ms.keys = append(ms.keys, key)
	return m
}

// touch marks key the most recently used.
func (ms *machines) touch(key [2]float64) {
	for i, k := range ms.keys {
		if k == key {
			ms.keys = append(append(ms.keys[:i:i], ms.keys[i+1:]...), key)
			return
		}
	}
}

// kept are the machines in memory.
func (o *Oracle) kept() []*Oracle {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*Oracle, 0, len(o.machines.keys))
	for _, k := range o.machines.keys {
		out = append(out, o.machines.by[k])
	}
	return out
}

// PredictOn returns the noiseless values on the scaled machine.
func (p oraclePrior) PredictOn(ctx context.Context, c space.Config, mem, overhead float64) ([]float64, bool) {
	return p.values(ctx, p.machine(mem, overhead), c)
}

// ScreenOn returns the values on the scaled machine's screening
// profiles (search.MachineScreener).
func (p oraclePrior) ScreenOn(ctx context.Context, c space.Config, mem, overhead float64) ([]float64, bool) {
	return p.values(ctx, p.machine(mem, overhead).Screening(), c)
}
