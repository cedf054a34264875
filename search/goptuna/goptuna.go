package goptuna

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/c-bata/goptuna"
	"github.com/c-bata/goptuna/tpe"
	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// studyModel proposes from a goptuna study: the model of the tpe and
// cmaes samplers. goptuna optimises the first objective.
type studyModel struct {
	sp    *space.Space
	rng   *rand.Rand
	study *goptuna.Study
	// store is the study's storage; it can retract lies (lyingStudy).
	store *retractable
	// asked maps a config's key to the goptuna trials that proposed it and
	// are not told yet, oldest first.
	asked map[string][]int
	// told holds the keys of told configs, to count the start-up.
	told map[string]bool
	// lo and hi bound the measured values, for the infeasible penalty.
	lo, hi   float64
	hasWorst bool
}

// newStudyModel creates the goptuna study: first-objective direction,
// seeded TPE for the knobs a relative sampler in extra does not take.
func newStudyModel(b search.Build, extra ...goptuna.StudyOption) (*studyModel, error) {
	dir := goptuna.StudyDirectionMaximize
	if b.Space.Objectives[0].Direction == space.Minimize {
		dir = goptuna.StudyDirectionMinimize
	}
	store := newRetractable()
	opts := append([]goptuna.StudyOption{
		goptuna.StudyOptionStorage(store),
		goptuna.StudyOptionDirection(dir),
		goptuna.StudyOptionLogger(zlog{b.Log}),
		goptuna.StudyOptionSampler(tpe.NewSampler(tpe.SamplerOptionSeed(b.Seed), tpe.SamplerOptionNumberOfStartupTrials(0))),
	}, extra...)
	st, err := goptuna.CreateStudy(b.Space.Study.Name, opts...)
	if err != nil {
		return nil, fmt.Errorf("create goptuna study: %w", err)
	}
	return &studyModel{sp: b.Space, rng: b.Rand, study: st, store: store, asked: map[string][]int{}, told: map[string]bool{}}, nil
}

// Draw proposes from the study after the seeded start-up: goptuna's own
// start-up draws categoricals from the global rand, which would make
// studies irreproducible for a seed.
func (m *studyModel) Draw() (space.Config, error) {
	if len(m.told) < search.StartupTrials {
		return m.sp.Sample(m.rng), nil
	}
	id, err := m.study.Storage.CreateNewTrial(m.study.ID)
	if err != nil {
		return nil, err
	}
	tr := goptuna.Trial{Study: m.study, ID: id}
	if err := tr.CallRelativeSampler(); err != nil {
		return nil, err
	}
	order, err := m.sp.Order()
	if err != nil {
		return nil, err
	}
	c := space.Config{}
	for _, p := range order {
		if !m.sp.Active(p, c) {
			continue
		}
		v, err := suggest(&tr, p)
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", p.Name, err)
		}
		c[p.Name] = v
	}
	k := search.ConfigKey(m.sp, c)
	m.asked[k] = append(m.asked[k], id)
	return c, nil
}

// Reject closes the goptuna trial that proposed c: as failed for a
// duplicate, as the infeasible penalty for a predicted failure, so the
// model learns the region without a launch.
func (m *studyModel) Reject(c space.Config, infeasible bool) {
	k := search.ConfigKey(m.sp, c)
	ids := m.asked[k]
	if len(ids) == 0 {
		return // a start-up draw: no goptuna trial
	}
	id := ids[len(ids)-1]
	m.forget(k, len(ids)-1)
	if infeasible && m.hasWorst && m.study.Storage.SetTrialValue(id, m.penalty()) == nil {
		_ = m.study.Storage.SetTrialState(id, goptuna.TrialStateComplete)
		return
	}
	_ = m.study.Storage.SetTrialState(id, goptuna.TrialStateFail)
}

// forget drops the i-th trial asked for key k.
func (m *studyModel) forget(k string, i int) {
	ids := append(m.asked[k][:i:i], m.asked[k][i+1:]...)
	if len(ids) == 0 {
		delete(m.asked, k)
		return
	}
	m.asked[k] = ids
}

// Learn completes the trial that proposed the config, or records one for a
// config the study did not propose (history, the baseline, a retry).
func (m *studyModel) Learn(o search.Observation) error {
	k := search.ConfigKey(m.sp, o.Config)
	m.told[k] = true
	id, err := m.trialOf(k, o.Config)
	if err != nil {
		return err
	}
	value, ok := o.Value, (o.State == search.Complete || o.State == search.Pruned) && !math.IsNaN(o.Value)
	if ok && o.State == search.Complete {
		m.observe(value)
	} else if !ok && (o.State == search.Infeasible || o.State == search.Pruned) && m.hasWorst {
		// goptuna's TPE ignores failed trials, so an infeasible config (or
		// one pruned because it could not win) is told as worse than
		// anything measured: the model moves away from the region instead
		// of proposing it again and again.
		value, ok = m.penalty(), true
	}
	if !ok {
		return m.study.Storage.SetTrialState(id, goptuna.TrialStateFail)
	}
	if err := m.study.Storage.SetTrialValue(id, value); err != nil {
		return err
	}
	return m.study.Storage.SetTrialState(id, goptuna.TrialStateComplete)
}

// trialOf is the oldest open trial that proposed key k, or a new trial
// carrying c's knobs.
func (m *studyModel) trialOf(k string, c space.Config) (int, error) {
	if ids := m.asked[k]; len(ids) > 0 {
		m.forget(k, 0)
		return ids[0], nil
	}
	return m.record(c)
}

// record opens a trial carrying c's knobs, for a config goptuna did not
// propose.
func (m *studyModel) record(c space.Config) (int, error) {
	id, err := m.study.Storage.CreateNewTrial(m.study.ID)
	if err != nil {
		return 0, err
	}
	for _, p := range m.sp.Params {
		v, present := c[p.Name]
		if !present || !p.Contains(v) {
			continue
		}
		if err := m.study.Storage.SetTrialParam(id, p.Name, search.Internal(p, v), distribution(p)); err != nil {
			return 0, fmt.Errorf("tell %s: %w", p.Name, err)
		}
	}
	return id, nil
}

func (m *studyModel) observe(v float64) {
	if !m.hasWorst {
		m.lo, m.hi, m.hasWorst = v, v, true
		return
	}
	m.lo, m.hi = math.Min(m.lo, v), math.Max(m.hi, v)
}

// penalty is a value a little worse than the worst measured one.
func (m *studyModel) penalty() float64 {
	margin := 0.1*(m.hi-m.lo) + 1e-9*math.Max(math.Abs(m.hi), 1)
	if m.sp.Objectives[0].Direction == space.Minimize {
		return m.hi + margin
	}
	return m.lo - margin
}

// zlog routes goptuna's logger into zerolog at debug level; goptuna's
// default writes to stdout, which belongs to servetune's own output.
type zlog struct{ l zerolog.Logger }

func (z zlog) Debug(msg string, f ...any) { z.l.Debug().Fields(f).Msg("goptuna: " + msg) }
func (z zlog) Info(msg string, f ...any)  { z.l.Debug().Fields(f).Msg("goptuna: " + msg) }
func (z zlog) Warn(msg string, f ...any)  { z.l.Warn().Fields(f).Msg("goptuna: " + msg) }
func (z zlog) Error(msg string, f ...any) { z.l.Error().Fields(f).Msg("goptuna: " + msg) }
