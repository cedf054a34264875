package studies

import (
	"context"
	"slices"
	"time"

	"github.com/servetune/servetune/studies/store"
)

// trialStore is what the study loop needs of its store once the study
// is open: reading the trials, claiming one, renewing and reclaiming
// leases, writing a result. Run uses RunOptions.Store; the tests put a
// store in front of it that fails on cue, to stop "the database" at a
// chosen moment.
type trialStore interface {
	Trials(ctx context.Context) ([]store.Trial, error)
	ReclaimExpired(ctx context.Context, now time.Time) ([]store.Trial, error)
	ClaimNext(ctx context.Context, t *store.Trial, until time.Time, caps store.Caps) error
	FinishLeased(ctx context.Context, t *store.Trial) error
	store.Renewer
}

// cutClaim is a claim the store did not answer (an outage cut it off
// mid-call): its transaction may have committed all the same, the answer
// lost on the way back, and its trial would then run nowhere while it
// counts toward n_trials — until its lease expired and the config was
// retried, a trial recorded that nobody measured.
type cutClaim struct {
	t    store.Trial
	slot int
}

// claimCutOff remembers a claim that failed because the store could not
// be reached, with the GPUs it reserved, until adopt settles it.
func (p *pool) claimCutOff(t store.Trial, slot int, err error) {
	if store.Unreachable(err) {
		p.unsure = &cutClaim{t: t, slot: slot}
	}
}

// adopt settles a cut-off claim once the store answers again, before
// any other claim: a running row of the claim's worker slot with its
// config is the claim, committed after all, and runs now on that slot
// (still free: nothing was claimed since); no such row, and the claim
// was never made — its GPUs are free again.
func (p *pool) adopt(ctx context.Context) (bool, error) {
	if p.unsure == nil {
		return false, nil
	}
	all, err := p.db.Trials(ctx)
	if err != nil {
		return false, err
	}
	p.store.Answered(p.Now(), p.Log)
	u := *p.unsure
	p.unsure = nil
	i := slices.IndexFunc(all, func(t store.Trial) bool {
		return t.State == store.Running && t.Worker == u.t.Worker && t.Origin == u.t.Origin && t.Config.Key() == u.t.Config.Key()
	})
	if i < 0 || p.slots[u.slot] {
		p.devices.Release(u.t.Devices)
		return false, nil
	}
	t := all[i]
	t.Devices = u.t.Devices
	p.Log.Warn().Int("trial", t.Number).Msg("a claim the store outage cut off had been made: its trial runs now")
	p.replace(t)
	p.launch(ctx, t, u.slot)
	return true, nil
}

// wroteBefore says whether the store holds t's result as this worker's
// write: a try that an outage cut off after it was made. A lease lost to
// a reclaim leaves the row interrupted instead.
func (p *pool) wroteBefore(ctx context.Context, t store.Trial) bool {
	all, err := p.db.Trials(ctx)
	if err != nil {
		return false
	}
	i := slices.IndexFunc(all, func(r store.Trial) bool { return r.Number == t.Number })
	return i >= 0 && all[i].State == t.State && all[i].Worker == t.Worker
}
