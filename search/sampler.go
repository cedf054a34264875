package search

import (
	"errors"
	"fmt"
	"math"
	"math/rand"

	"github.com/c-bata/goptuna"
	"github.com/c-bata/goptuna/cmaes"
	"github.com/c-bata/goptuna/tpe"
	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

// State is how a trial ended, as far as the sampler cares.
type State string

const (
	Complete State = "complete"
	// Failed trials (crashes, timeouts, interruptions) say nothing about
	// the region; the sampler ignores them.
	Failed State = "failed"
	// Infeasible trials (rule violations, OOM, invalid configs) mark a
	// region the sampler should leave.
	Infeasible State = "infeasible"
	Pruned     State = "pruned"
)

// Observation is one finished trial.
type Observation struct {
	Config space.Config
	State  State
	// Value is the first objective's value; it guides single-objective
	// samplers.
	Value float64
	// Values are all objective values (space order) and Violation the
	// summed relative SLO violation, for multi-objective samplers.
	Values    []float64
	Violation float64
	// Class is the failure class of a failed or infeasible trial
	// ("oom", "invalid_config", "infeasible", ...).
	Class string
}

// ErrExhausted is returned by Ask when a finite space has no config left
// that was not measured already.
var ErrExhausted = errors.New("every config of the space has been measured")

// Searcher proposes configs. It is not safe for concurrent use.
type Searcher struct {
	sp      *space.Space
	kind    string
	rng     *rand.Rand
	study   *goptuna.Study
	startup int
	// asked maps a config key to the goptuna trial that proposed it.
	asked map[string]int
	// seen holds every config told so far.
	seen map[string]bool
	grid []space.Config
	// lo and hi bound the measured values, for the infeasible penalty.
	lo, hi   float64
	hasWorst bool
}

// startupTrials is how many seeded random configs precede model-based
// sampling. goptuna's own startup draws categoricals from the global rand,
// which would make studies irreproducible for a seed.
const startupTrials = 10

// New builds a searcher for the space's sampler and feeds it the history.
func New(sp *space.Space, seed int64, history []Observation, log zerolog.Logger) (*Searcher, error) {
	s := &Searcher{sp: sp, kind: sp.Study.Sampler, rng: rand.New(rand.NewSource(seed)), startup: startupTrials,
		asked: map[string]int{}, seen: map[string]bool{}}
	dir := goptuna.StudyDirectionMaximize
	if sp.Objectives[0].Direction == space.Minimize {
		dir = goptuna.StudyDirectionMinimize
	}
	opts := []goptuna.StudyOption{
		goptuna.StudyOptionDirection(dir),
		goptuna.StudyOptionLogger(zlog{log}),
		goptuna.StudyOptionSampler(tpe.NewSampler(tpe.SamplerOptionSeed(seed), tpe.SamplerOptionNumberOfStartupTrials(0))),
	}
	if s.kind == "cmaes" {
		opts = append(opts, goptuna.StudyOptionRelativeSampler(cmaes.NewSampler(cmaes.SamplerOptionSeed(seed))))
	}
	st, err := goptuna.CreateStudy(sp.Study.Name, opts...)
	if err != nil {
		return nil, fmt.Errorf("create sampler: %w", err)
	}
	s.study = st
	if s.kind == "grid" {
		s.grid = Grid(sp)
		s.rng.Shuffle(len(s.grid), func(i, j int) { s.grid[i], s.grid[j] = s.grid[j], s.grid[i] })
	}
	for _, o := range history {
		if err := s.Tell(o); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Seen reports whether a config was already told.
func (s *Searcher) Seen(c space.Config) bool { return s.seen[c.Key()] }

// Ask proposes the next config: never one already told, and never one
// that breaks a rule unless the sampler cannot find another (the caller
// records that as infeasible, and Tell teaches the sampler).
func (s *Searcher) Ask() (space.Config, error) {
	if s.kind == "grid" {
		for len(s.grid) > 0 {
			c := s.grid[0]
			s.grid = s.grid[1:]
			if !s.seen[c.Key()] {
				return c, nil
			}
		}
		return nil, ErrExhausted
	}
	// The model may keep proposing measured configs once it is confident;
	// then random draws, and for a finite space an unmeasured grid point,
	// keep the study moving.
	const modelAttempts, randomAttempts = 20, 100
	var last space.Config
	for i := 0; i < modelAttempts+randomAttempts; i++ {
		var c space.Config
		if i < modelAttempts {
			var err error
			if c, err = s.propose(); err != nil {
				return nil, err
			}
		} else {
			c = s.sp.Sample(s.rng)
		}
		last = c
		if !s.seen[c.Key()] {
			return c, nil
		}
		s.abandon(c)
	}
	if s.finite() {
		var unseen []space.Config
		for _, c := range Grid(s.sp) {
			if !s.seen[c.Key()] {
				unseen = append(unseen, c)
			}
		}
		if len(unseen) == 0 {
			return nil, ErrExhausted
		}
		return unseen[s.rng.Intn(len(unseen))], nil
	}
	return last, nil
}

func (s *Searcher) finite() bool {
	for _, p := range s.sp.Params {
		if _, ok := p.Grid(); !ok {
			return false
		}
	}
	return true
}

func (s *Searcher) propose() (space.Config, error) {
	if s.kind == "random" || len(s.seen) < s.startup {
		return s.sp.Sample(s.rng), nil
	}
	id, err := s.study.Storage.CreateNewTrial(s.study.ID)
	if err != nil {
		return nil, err
	}
	tr := goptuna.Trial{Study: s.study, ID: id}
	if err := tr.CallRelativeSampler(); err != nil {
		return nil, err
	}
	order, err := s.sp.Order()
	if err != nil {
		return nil, err
	}
	c := space.Config{}
	for _, p := range order {
		if !s.sp.Active(p, c) {
			continue
		}
		v, err := suggest(&tr, p)
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", p.Name, err)
		}
		c[p.Name] = v
	}
	s.asked[c.Key()] = id
	return c, nil
}

// abandon closes a proposed-but-duplicate goptuna trial as failed.
func (s *Searcher) abandon(c space.Config) {
	if id, ok := s.asked[c.Key()]; ok {
		_ = s.study.Storage.SetTrialState(id, goptuna.TrialStateFail)
		delete(s.asked, c.Key())
	}
}

// Tell records a finished trial.
func (s *Searcher) Tell(o Observation) error {
	key := o.Config.Key()
	s.seen[key] = true
	id, ok := s.asked[key]
	delete(s.asked, key)
	if !ok {
		var err error
		if id, err = s.study.Storage.CreateNewTrial(s.study.ID); err != nil {
			return err
		}
		for _, p := range s.sp.Params {
			v, present := o.Config[p.Name]
			if !present || !p.Contains(v) {
				continue
			}
			if err := s.study.Storage.SetTrialParam(id, p.Name, internal(p, v), distribution(p)); err != nil {
				return fmt.Errorf("tell %s: %w", p.Name, err)
			}
		}
	}
	value, ok := o.Value, o.State == Complete && !math.IsNaN(o.Value)
	if ok {
		s.observe(value)
	} else if (o.State == Infeasible || o.State == Pruned) && s.hasWorst {
		// goptuna's TPE ignores failed trials, so an infeasible config (or
		// one pruned because it could not win) is told as worse than
		// anything measured: the model moves away from the region instead
		// of proposing it again and again.
		value, ok = s.penalty(), true
	}
	if !ok {
		return s.study.Storage.SetTrialState(id, goptuna.TrialStateFail)
	}
	if err := s.study.Storage.SetTrialValue(id, value); err != nil {
		return err
	}
	return s.study.Storage.SetTrialState(id, goptuna.TrialStateComplete)
}

func (s *Searcher) observe(v float64) {
	if !s.hasWorst {
		s.lo, s.hi, s.hasWorst = v, v, true
		return
	}
	s.lo, s.hi = math.Min(s.lo, v), math.Max(s.hi, v)
}

// penalty is a value a little worse than the worst measured one.
func (s *Searcher) penalty() float64 {
	margin := 0.1*(s.hi-s.lo) + 1e-9*math.Max(math.Abs(s.hi), 1)
	if s.sp.Objectives[0].Direction == space.Minimize {
		return s.hi + margin
	}
	return s.lo - margin
}

// zlog routes goptuna's logger into zerolog at debug level; goptuna's
// default writes to stdout, which belongs to servetune's own output.
type zlog struct{ l zerolog.Logger }

func (z zlog) Debug(msg string, f ...any) { z.l.Debug().Fields(f).Msg("goptuna: " + msg) }
func (z zlog) Info(msg string, f ...any)  { z.l.Debug().Fields(f).Msg("goptuna: " + msg) }
func (z zlog) Warn(msg string, f ...any)  { z.l.Warn().Fields(f).Msg("goptuna: " + msg) }
func (z zlog) Error(msg string, f ...any) { z.l.Error().Fields(f).Msg("goptuna: " + msg) }
