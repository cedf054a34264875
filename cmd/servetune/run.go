package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

func runCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run (or resume) the study a search-space file declares",
		ArgsUsage: "SPACE.toml",
		Flags: []cli.Flag{
			dirFlag(),
			&cli.BoolFlag{Name: "fresh", Usage: "delete the study of the same name and start over"},
			&cli.IntFlag{Name: "n-trials", Usage: "override study.n_trials"},
			repeatFlag(), confirmFlag(), budgetFlag(), noPruneFlag(),
			&cli.StringFlag{Name: "storage", Usage: "run the study in shared storage at `URL` (postgres://user@host/db), as servetune worker does (default $" + storageEnv + "; otherwise studies/<name>/study.db)"},
			&cli.IntFlag{Name: "workers", Value: 1, Usage: "run N trials at once on this machine, each leased to a worker; real engines are packed onto the GPUs (--gpus)"},
			storeOutageFlag(), storeConnectFlag(), waitForStoreFlag(),
			gpusFlag(),
			nodesFlag(),
			enginesFlag(),
			cardsFlag(),
			optunaFlag("keep the study current in an Optuna storage while it runs"),
			&cli.StringSliceFlag{Name: "warm-start", Usage: "run the winners (best or Pareto front) of an earlier STUDY first (name under studies/ or a study.db path; repeatable)"},
			dryRunFlag(),
		},
		Action: e.runAction,
	}
}

// runAction checks the run command's flags and runs the study.
func (e *env) runAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return oneSpaceFile("run", c.Args().Slice())
	}
	sp, err := e.loadRunSpace(c)
	if err != nil {
		return err
	}
	if c.Bool("dry-run") {
		return e.dryRun(c, sp)
	}
	url, err := storageURL(c.String("storage"), sp)
	if err != nil {
		return err
	}
	if url != "" {
		return e.runShared(c, sp, url)
	}
	opts, err := localRunOptions(c, sp)
	if err != nil {
		return err
	}
	if err := opts.check(sp); err != nil {
		return err
	}
	return e.runStudy(c.Context, sp, c.Args().First(), opts)
}

// localRunOptions are the flags of a run in a study.db.
func localRunOptions(c *cli.Context, sp *space.Space) (runOptions, error) {
	var devices []string // one trial at a time packs nothing
	if err := gpusNeedWorkers(c); err != nil {
		return runOptions{}, err
	}
	if c.Int("workers") > 1 {
		var err error
		if devices, err = workerDevices(c.String("gpus")); err != nil {
			return runOptions{}, err
		}
	}
	opts := trialOptions(c, devices)
	opts.fresh = c.Bool("fresh")
	for _, name := range c.StringSlice("warm-start") {
		cfgs, err := warmStart(c.Context, c.String("dir"), name, sp)
		if err != nil {
			return runOptions{}, err
		}
		opts.enqueue = append(opts.enqueue, cfgs...)
	}
	return opts, nil
}

// gpusNeedWorkers refuses --gpus on a local run of one trial at a time,
// which packs nothing and would ignore it (issue 50: the dry run checked
// GPUs 0–7 for --gpus 0-1 and said nothing).
func gpusNeedWorkers(c *cli.Context) error {
	g := c.String("gpus")
	if g == "" || c.Int("workers") > 1 {
		return nil
	}
	devs, err := workerDevices(g)
	if err != nil {
		return err
	}
	return usagef("--gpus %s needs --workers N > 1: one trial at a time runs on the GPUs the environment shows; pack trials onto these with --workers, or restrict that one with CUDA_VISIBLE_DEVICES=%s", g, strings.Join(devs, ","))
}

// runShared runs the study in shared storage: the run is one worker
// among any others, with no study lock (--fresh and --warm-start need
// the study's directory and are refused).
func (e *env) runShared(c *cli.Context, sp *space.Space, url string) error {
	if c.Bool("fresh") || len(c.StringSlice("warm-start")) > 0 {
		return usagef("--fresh and --warm-start work on a study.db; drop the study's schema to start a shared study over")
	}
	devices, err := workerDevices(c.String("gpus"))
	if err != nil {
		return err
	}
	o := workerOptions{storage: url, lease: store.DefaultLease, trials: trialOptions(c, devices)}
	if err := o.check(sp); err != nil {
		return err
	}
	return e.work(c.Context, sp, c.Args().First(), o)
}

// runOptions are the flags that say how a study's trials run, shared by
// run and worker.
type runOptions struct {
	engines []string // --engines files
	root    string
	fresh   bool
	repeat  int
	// confirm is --confirm: the share of n_trials that re-measures the
	// baseline and the best configs.
	confirm float64
	// repeatSet: --repeat was given; otherwise [study] repeat applies.
	repeatSet bool
	budget    time.Duration
	prune     bool
	enqueue   []space.Config
	workers   int
	devices   []string
	// shared: the study is in shared storage, run by this process as
	// one worker among any others (lease, id).
	shared   bool
	workerID string
	lease    time.Duration
	// cards are the simulator cards of the runner and the prior
	// (studyCards).
	cards *sim.Cards
	// storeOutage bounds how long an unreachable store is ridden out.
	storeOutage time.Duration
	// outageFrom and connectFrom name where --store-outage and
	// --store-connect-timeout came from (the flag, or its variable), for
	// refusals.
	outageFrom, connectFrom string
	// storeConnect bounds the wait for a store never reached (0: the
	// outage bound, --wait-for-store).
	storeConnect time.Duration
	optuna       string // --optuna: an Optuna storage kept current
}

// trialOptions reads the flags run and worker share.
func trialOptions(c *cli.Context, devices []string) runOptions {
	return runOptions{devices: devices, engines: c.StringSlice("engines"), root: c.String("dir"), repeat: c.Int("repeat"), confirm: c.Float64("confirm"), repeatSet: c.IsSet("repeat"), budget: c.Duration("budget"), prune: !c.Bool("no-prune"), workers: c.Int("workers"), storeOutage: c.Duration("store-outage"), storeConnect: storeConnect(c), optuna: c.String("optuna"),
		outageFrom: durationFrom(c, "store-outage", "SERVETUNE_STORE_OUTAGE"), connectFrom: durationFrom(c, "store-connect-timeout", "SERVETUNE_STORE_CONNECT_TIMEOUT")}
}

// durationFrom names where a duration flag's value came from: its
// environment variable when that is set and holds the value read (the
// flag was not given, or gave the same), else the flag. A refusal that
// named the flag sent its reader looking for a flag nobody typed.
func durationFrom(c *cli.Context, name, envVar string) string {
	if v, ok := os.LookupEnv(envVar); ok {
		if d, err := time.ParseDuration(v); err == nil && d == c.Duration(name) {
			return "$" + envVar
		}
	}
	return "--" + name
}

// minStoreWait is the shortest --store-outage and --store-connect-timeout
// above 0 (0 keeps its meaning: none, or the outage bound): a store's
// first answer takes a network round trip and a TLS handshake, so a
// nanosecond gave up on a healthy store before asking it (exit 1), and
// the space's own durations have the same 1 s floor.
const minStoreWait = time.Second

// MaxWorkers bounds --workers: each worker holds a trial, a lease and a
// store connection at once, and past a few thousand a number is a typo
// (100000000 started that many goroutines and connections).
const maxWorkers = 4096

// minBudget is the shortest --budget: no trial (an engine start and a
// benchmark; the simulator's shortest takes seconds of device time)
// fits in less than a second, so --budget 1ns ran one trial and stopped.
const minBudget = time.Second

// check refuses flag values the study cannot honour.
func (o runOptions) check(sp *space.Space) error {
	switch {
	case o.repeat < 1 || o.repeat > space.MaxRepeat:
		return usagef("--repeat must be between 1 and %d, got %d", space.MaxRepeat, o.repeat)
	case !(o.confirm >= 0 && o.confirm <= 0.5): // NaN included
		return usagef("--confirm must be between 0 and 0.5, got %v", o.confirm)
	case o.budget < 0:
		return usagef("--budget must be positive")
	case o.budget > 0 && o.budget < minBudget:
		return usagef("--budget %v is shorter than the %v any trial takes: give a budget of device time such as 8h", o.budget, minBudget)
	case o.workers > maxWorkers:
		return usagef("--workers %d is more than the %d trials one process may run at once", o.workers, maxWorkers)
	case o.storeOutage < 0:
		return usagef("%s must not be negative", o.from(o.outageFrom, "--store-outage"))
	case o.storeOutage > 0 && o.storeOutage < minStoreWait:
		return usagef("%s %v is shorter than %v, less than a store takes to answer: give at least %v, or 0 for none", o.from(o.outageFrom, "--store-outage"), o.storeOutage, minStoreWait, minStoreWait)
	case o.storeConnect < 0:
		return usagef("%s must not be negative", o.from(o.connectFrom, "--store-connect-timeout"))
	case o.storeConnect > 0 && o.storeConnect < minStoreWait:
		return usagef("%s %v is shorter than %v, less than a store takes to answer: give at least %v", o.from(o.connectFrom, "--store-connect-timeout"), o.storeConnect, minStoreWait, minStoreWait)
	}
	if err := checkOptuna(o.optuna); err != nil {
		return err
	}
	if err := studies.CheckWorkers(sp, o.workers, o.devices); err != nil {
		return usageError{err}
	}
	return nil
}

// from is where a flag's value came from, the flag itself when unknown
// (options built in tests).
func (o runOptions) from(from, flag string) string {
	if from == "" {
		return flag
	}
	return from
}

// repeats is --repeat when given, else the space's [study] repeat.
func (o runOptions) repeats(sp *space.Space) int {
	if o.repeatSet || sp.Study.Repeat < 1 {
		return o.repeat
	}
	return sp.Study.Repeat
}

func repeatFlag() cli.Flag {
	return &cli.IntFlag{Name: "repeat", Value: 1, Usage: "measure each config N times (noise estimates; default [study] repeat, else 1)"}
}

func confirmFlag() cli.Flag {
	return &cli.Float64Flag{Name: "confirm", Value: search.DefaultConfirmShare, Usage: "spend this share of n_trials measuring the baseline and the best configs again, to measure the noise and confirm the best (up to half more while rivals overlap the best, less once it is separated; 0: never; studies of fewer than 10 trials never do)"}
}

func budgetFlag() cli.Flag {
	return &cli.DurationFlag{Name: "budget", Usage: "stop after this much device time (engine start + benchmark × GPUs, or CPU time on a CPU target; failures included), e.g. 8h; in shared storage the whole study's"}
}

func noPruneFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-prune", Usage: "never stop a trial early"}
}

func (e *env) runStudy(ctx context.Context, sp *space.Space, file string, o runOptions) error {
	if err := probeOptuna(ctx, o.optuna); err != nil {
		return err
	}
	oo, err := e.openOptions(file, o.engines)
	if err != nil {
		return err
	}
	oo.Fresh, oo.Holder = o.fresh, store.Me(time.Now())
	d := studydir.For(o.root, sp)
	sess, err := studies.OpenSession(ctx, d, sp, oo)
	if err != nil {
		return openError(err)
	}
	defer sess.Close()
	cards, err := e.checkStudy(ctx, sp, sess.Store)
	if err != nil {
		return err
	}
	o.cards = cards
	runner, err := newRunner(e, sp, d, cards)
	if err != nil {
		return err
	}
	if c, ok := runner.(interface{ Close(context.Context) error }); ok {
		// A server kept for reuse is torn down however the run ends.
		defer c.Close(context.WithoutCancel(ctx))
	}
	if err := e.loop(ctx, sp, sess, runner, o); err != nil {
		return err
	}
	return e.summary(ctx, sp, sess)
}

// openOptions are what every run and worker opens a study with: the
// space file's text to store, and the parser that re-reads a stored space
// with the same engine declarations.
func (e *env) openOptions(file string, engineFiles []string) (studies.OpenOptions, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return studies.OpenOptions{}, err
	}
	return studies.OpenOptions{Source: string(src), Log: e.log,
		Parse: func(ctx context.Context, file, src string) (*space.Space, error) {
			opt := spaceOptions(engineFiles...)
			opt.CheckTarget = nil // its trials ran; studyCards compares the cards
			return space.Parse(ctx, file, src, opt)
		},
	}, nil
}

// openError makes a study whose space changed a usage error (exit 2).
func openError(err error) error {
	if errors.Is(err, studies.ErrSpaceChanged) {
		return usageError{err}
	}
	return err
}

// checkStudy records the space's declared engines and its simulator
// cards (studyCards: the cards returned) with the study and
// refuses (or warns about, per on_drift) an environment that changed
// since the study's last trial; every run and every worker does it.
func (e *env) checkStudy(ctx context.Context, sp *space.Space, st *store.Store) (*sim.Cards, error) {
	cards, trials, err := e.readStudy(ctx, sp, st)
	if err != nil {
		return nil, err
	}
	return cards, e.checkDrift(ctx, sp, trials)
}

// readStudy is checkStudy's store calls: the engines and cards recorded,
// the trials read.
func (e *env) readStudy(ctx context.Context, sp *space.Space, st *store.Store) (*sim.Cards, []store.Trial, error) {
	if err := store.RecordEngines(ctx, st, sp); err != nil {
		return nil, nil, err
	}
	cards, err := studies.StudyCards(ctx, sp, st, e.log)
	if err != nil {
		return nil, nil, err
	}
	trials, err := st.Trials(ctx)
	return cards, trials, err
}

// loop runs the study with live progress.
func (e *env) loop(ctx context.Context, sp *space.Space, sess *studies.Session, runner objective.Runner, o runOptions) error {
	observer, closeObserver, err := e.optunaMirror(ctx, sp, sess.Store, o.optuna)
	if err != nil {
		return err
	}
	defer closeObserver()
	view, err := e.progressFor(ctx, sp, sess.Store, o.budget)
	if err != nil {
		return err
	}
	ro := studies.RunOptions{
		Space: sp, Store: sess.Store, Runner: runner, Dir: sess.Dir, Repeat: o.repeats(sp), Confirm: o.confirm, Budget: o.budget,
		Enqueue: sp.Enqueue, WarmStart: o.enqueue,
		Log: e.log, OnEvent: view.Event, Workers: o.workers, Devices: o.devices, ReuseKey: studies.RenderedKey(sp.Target),
		Shared: o.shared, WorkerID: o.workerID, Lease: o.lease, StoreOutage: o.storeOutage, Observer: observer,
	}
	prior, closePrior := simprior.InStudy(sp, o.cards, sess.Dir.Path(), e.log)
	defer closePrior()
	ro.Search.Prior = view.Watch(prior)
	if o.prune {
		rule := search.DefaultPruneRule()
		ro.Prune = &rule
	}
	err = studies.Run(ctx, ro)
	view.Close()
	switch {
	case errors.Is(err, studies.ErrTimeout):
		e.log.Info().Dur("timeout", sp.Study.Timeout).Msg("study timeout reached")
	case errors.Is(err, studies.ErrBudget):
		e.log.Info().Dur("budget", o.budget).Msg("device-time budget spent")
	case err != nil:
		return err
	}
	return nil
}

// summary prints the study's report; a study that ended with no complete
// trial is an error a scheduler can see (exit 3).
func (e *env) summary(ctx context.Context, sp *space.Space, sess *studies.Session) error {
	trials, err := sess.Store.Trials(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	r := studies.BuildReport(sp, trials, renderCommand(sp))
	fmt.Fprintln(e.stdout)
	if err := r.Text(e.stdout); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nStudy stored in %s (servetune show %s, servetune best %s).\n", sess.Store.Path(), sp.Study.Name, sp.Study.Name)
	fmt.Fprintf(e.stdout, "Report with plots: servetune report %s (writes %s-report.html)\n", sp.Study.Name, sp.Study.Name)
	if r.Counts.Complete == 0 {
		class, example := studies.CommonFailure(trials)
		if class != "" {
			fmt.Fprintf(e.stdout, "Every trial failed as %s: %s\n", class, example)
		}
		return studies.NoCompleteError{Total: r.Counts.Total, Class: class, Example: example}
	}
	return nil
}

// warmStart returns the winners of an earlier study, cut down to the knobs
// of this space.
func warmStart(ctx context.Context, root, name string, sp *space.Space) ([]space.Config, error) {
	d := studydir.Of(root, name)
	if !d.Exists() {
		return nil, usagef("--warm-start: no study %q (looked for %s)", name, d.DB())
	}
	old, trials, err := studies.OpenStudy(ctx, d)
	if err != nil {
		return nil, err
	}
	return studies.WarmStart(old, trials, sp), nil
}

// newRunner is the target's runner; a real runner's study that
// simulates the GPU types it does not own (target.simulated_gpus) routes
// those trials to the simulator, on the prior's cards, with its intervals
// (objective.ByGPU).
func newRunner(e *env, sp *space.Space, d studydir.Dir, cards *sim.Cards) (objective.Runner, error) {
	if sp.Target.Runner != "process" {
		e.profileNotes(sp)
		return objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: cards})), nil
	}
	measured := objective.NewProcessRunner(e.log, d.Engines(), objective.WithReuse(), objective.WithLauncher(e.guardEngines),
		objective.WithBenchOptions(bench.RunOptions{Progress: e.requests().Report}))
	if len(sp.Target.SimulatedGPUs) == 0 {
		return measured, nil
	}
	e.profileNotes(sp)
	return objective.ByGPU{Real: measured, Sim: objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: cards}), objective.WithIntervals())}, nil
}

// profileNotes warns of what the simulator does not model in the
// space's profiles.
func (e *env) profileNotes(sp *space.Space) {
	for _, p := range sp.Profiles {
		for _, n := range sim.ProfileNotes(p) {
			e.log.Warn().Str("study", sp.Study.Name).Msg(n)
		}
	}
}

// renderCommand gives reports the real engine's serving command.
func renderCommand(sp *space.Space) studies.Renderer { return renderAs(sp, false) }

// renderAs is renderCommand; launched puts the target's program override
// ([target.engines.E] command) in place of the engine's own program, as
// the process runner launches it (the dry run's "First trials").
func renderAs(sp *space.Space, launched bool) studies.Renderer {
	return func(c space.Config) (string, error) {
		d, err := engines.Deploy(sp.WithTargetEngine(c), sp.Target)
		if err != nil {
			return "", err
		}
		if d.PD != nil {
			return engines.PDText(d.Processes, false), nil
		}
		cmd := d.Command
		if launched {
			cmd = withProgram(cmd, sp.Target.Engines[d.Name].Command)
		}
		// Generated files (TRT-LLM's options YAML, Ollama's Modelfile) are
		// part of the command a user must reproduce.
		var b strings.Builder
		b.WriteString(cmd.Shell())
		for _, name := range sortedNames(cmd.Files) {
			fmt.Fprintf(&b, "\n# %s\n%s", name, strings.TrimRight(cmd.Files[name], "\n"))
		}
		return b.String(), nil
	}
}

// withProgram is cmd with program (when set) in place of its own, as
// engines/launch does.
func withProgram(cmd engines.Command, program []string) engines.Command {
	if len(program) == 0 {
		return cmd
	}
	cmd.Argv = append(slices.Clone(program), cmd.Argv[cmd.Program:]...)
	cmd.Program = len(program)
	return cmd
}
