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
	// seen holds every config told so far, told its observation.
	seen   map[string]bool
	told   map[string]Observation
	feas   *Feasibility
	mo     *MOSampler
	greedy *Greedy
	grid   []space.Config
	opt    Options
	// lo and hi bound the measured values, for the infeasible penalty.
	lo, hi   float64
	hasWorst bool
}

// startupTrials is how many seeded random configs precede model-based
// sampling. goptuna's own startup draws categoricals from the global rand,
// which would make studies irreproducible for a seed.
const startupTrials = 10

// Options tune a Searcher.
type Options struct {
	// NoFeasibility turns off learning infeasible regions from OOM and
	// invalid-config trials (the lab measures what it saves).
	NoFeasibility bool
}

// New builds a searcher for the space's sampler and feeds it the history.
func New(sp *space.Space, seed int64, history []Observation, log zerolog.Logger, opt Options) (*Searcher, error) {
	s := &Searcher{sp: sp, kind: sp.Study.Sampler, rng: rand.New(rand.NewSource(seed)), startup: startupTrials,
		asked: map[string]int{}, seen: map[string]bool{}, told: map[string]Observation{}, opt: opt}
	if !opt.NoFeasibility {
		s.feas = NewFeasibility(sp)
	}
	switch {
	case s.kind == "greedy":
		s.greedy = NewGreedy(sp)
	case s.kind == "motpe" || (s.kind == "tpe" && len(sp.Objectives) > 1):
		// servetune's own (MO)TPE: multivariate kernels over conditional
		// knobs, a seeded rand, feasibility first. It is the default; with
		// two or more objectives it also replaces goptuna's single-
		// objective TPE when `tpe` is asked for.
		s.mo = NewMOSampler(sp, seed)
		if s.feas != nil {
			s.mo.Avoid = func(c space.Config) bool { bad, _ := s.feas.Predict(s.sp.WithTargetEngine(c)); return bad }
		}
	}
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
		// CMA-ES takes the numeric knobs that always exist. The space is
		// given explicitly: goptuna's own intersection of past trials'
		// distributions compares them with != and panics on categoricals.
		numeric := map[string]any{}
		for _, p := range sp.Params {
			if p.Kind != space.Categorical && p.When == nil {
				numeric[p.Name] = distribution(p)
			}
		}
		opts = append(opts, goptuna.StudyOptionRelativeSampler(cmaes.NewSampler(cmaes.SamplerOptionSeed(seed))),
			goptuna.StudyOptionDefineSearchSpace(numeric))
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

// key identifies a config whether or not it names the target's engine:
// proposals leave it out when the space has no engine knob, stored trials
// carry it.
func (s *Searcher) key(c space.Config) string { return s.sp.WithTargetEngine(c).Key() }

// Seen reports whether a config was already told.
func (s *Searcher) Seen(c space.Config) bool { return s.seen[s.key(c)] }

// Ask proposes the next config: never one already told, and never one
// that breaks a rule unless the sampler cannot find another (the caller
// records that as infeasible, and Tell teaches the sampler).
func (s *Searcher) Ask() (space.Config, error) {
	switch s.kind {
	case "grid":
		for len(s.grid) > 0 {
			c := s.grid[0]
			s.grid = s.grid[1:]
			if !s.seen[s.key(c)] {
				return c, nil
			}
		}
		return nil, ErrExhausted
	case "greedy":
		return s.askGreedy()
	}
	// The model may keep proposing measured configs once it is confident,
	// or configs the feasibility model expects to fail; then random draws,
	// and for a finite space an unmeasured grid point, keep the study moving.
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
		if s.seen[s.key(c)] {
			s.abandon(c, false)
			continue
		}
		if bad, _ := s.predictInfeasible(c); bad {
			s.abandon(c, true)
			continue
		}
		return c, nil
	}
	if s.finite() {
		var unseen []space.Config
		for _, c := range Grid(s.sp) {
			if !s.seen[s.key(c)] {
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

// askGreedy follows the coordinate sweep; a config it proposes that was
// measured already (a resumed study) is answered from memory.
func (s *Searcher) askGreedy() (space.Config, error) {
	for {
		c, ok := s.greedy.Propose()
		if !ok {
			return nil, ErrExhausted
		}
		o, seen := s.told[s.key(c)]
		if !seen {
			return c, nil
		}
		s.greedy.Tell(o)
	}
}

// predictInfeasible asks the feasibility model, when it is on.
func (s *Searcher) predictInfeasible(c space.Config) (bool, string) {
	if s.feas == nil {
		return false, ""
	}
	return s.feas.Predict(c)
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
	if s.mo != nil {
		return s.mo.Propose(), nil
	}
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
	s.asked[s.key(c)] = id
	return c, nil
}

// abandon closes a goptuna trial that will not run: as failed for a
// duplicate, as the infeasible penalty for a predicted failure, so the
// model learns the region without a launch.
func (s *Searcher) abandon(c space.Config, infeasible bool) {
	id, ok := s.asked[s.key(c)]
	if !ok {
		return
	}
	delete(s.asked, s.key(c))
	if infeasible && s.hasWorst && s.study.Storage.SetTrialValue(id, s.penalty()) == nil {
		_ = s.study.Storage.SetTrialState(id, goptuna.TrialStateComplete)
		return
	}
	_ = s.study.Storage.SetTrialState(id, goptuna.TrialStateFail)
}

// Tell records a finished trial.
func (s *Searcher) Tell(o Observation) error {
	key := s.key(o.Config)
	s.seen[key] = true
	s.told[key] = o
	if s.feas != nil {
		s.feas.Tell(o)
	}
	if s.mo != nil {
		s.mo.Tell(o)
	}
	if s.greedy != nil {
		s.greedy.Tell(o)
	}
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
	value, ok := o.Value, (o.State == Complete || o.State == Pruned) && !math.IsNaN(o.Value)
	if ok && o.State == Complete {
		s.observe(value)
	} else if !ok && (o.State == Infeasible || o.State == Pruned) && s.hasWorst {
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
