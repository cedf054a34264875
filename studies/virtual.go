package studies

import (
	"context"
	"sort"
	"time"

	"github.com/servetune/servetune/studies/store"
)

// virtualLease outlasts any virtual study: nothing heartbeats on a
// virtual clock, and no trial of one process is anyone else's to reclaim.
const virtualLease = 100 * 365 * 24 * time.Hour

// virtualClock is the pool's time when trials run on a virtual clock:
// the trials in flight with the virtual time each ends at.
type virtualClock struct {
	now     time.Time
	pending []virtualEnd
}

type virtualEnd struct {
	f   finished
	end time.Time
}

// useVirtualClock makes the loop read the virtual clock.
func (p *pool) useVirtualClock() {
	p.clock = &virtualClock{now: p.Now()}
	p.Now = func() time.Time { return p.clock.now }
	p.Lease = virtualLease
}

// runVirtual measures a trial at once and schedules its end at its
// start plus the time it ran.
func (p *pool) runVirtual(ctx context.Context, w *loop, t store.Trial, slot int) {
	fatal := w.measure(ctx, &t)
	t.End = t.Start.Add(trialDuration(t, p.gpuNeed(t.Config)))
	p.clock.pending = append(p.clock.pending, virtualEnd{f: finished{t: t, slot: slot, fatal: fatal}, end: t.End})
	sort.SliceStable(p.clock.pending, func(i, j int) bool { return p.clock.pending[i].end.Before(p.clock.pending[j].end) })
}

// nextVirtual advances the clock to the earliest end and returns that
// trial.
func (p *pool) nextVirtual() finished {
	e := p.clock.pending[0]
	p.clock.pending = p.clock.pending[1:]
	p.clock.now = e.end
	return e.f
}

// trialDuration is how long a trial occupied its GPUs: its device time
// over their number.
func trialDuration(t store.Trial, gpus int) time.Duration {
	return time.Duration(t.GPUSeconds / float64(max(gpus, 1)) * float64(time.Second))
}
