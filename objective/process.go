package objective

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/launch"
)

// ProcessRunner measures trials on real engines: it launches the engine
// the config renders to, waits until it is ready, runs every profile with
// the load generator, and always tears the engine down (also when ctx is
// cancelled), so no engine outlives its trial or holds the GPUs the next
// one needs. Trials may run side by side, each on its own devices
// (Trial.Devices), port and directory; trials without devices see every
// GPU and must run one at a time.
type ProcessRunner struct {
	log      zerolog.Logger
	launcher *launch.Launcher
	bench    bench.RunOptions
	reuse    bool
	warm     warmPool
}

// ProcessOption configures a ProcessRunner.
type ProcessOption func(*ProcessRunner)

// WithLauncher adjusts the engine launcher (timeouts, grace, GPU polling).
func WithLauncher(f func(*launch.Launcher)) ProcessOption {
	return func(r *ProcessRunner) { f(r.launcher) }
}

// WithBenchOptions sets how each profile is run and summarised.
func WithBenchOptions(o bench.RunOptions) ProcessOption {
	return func(r *ProcessRunner) { r.bench = o }
}

// WithReuse keeps a healthy engine running after a trial, so a later
// trial on the same devices whose rendered command is identical (it
// differs only in benchmark-side settings) skips the launch; a trial that
// needs any of its devices otherwise stops it first (warmPool). Call Close
// at the end.
func WithReuse() ProcessOption { return func(r *ProcessRunner) { r.reuse = true } }

// NewProcessRunner returns a Runner that launches engines, each recorded
// by a pidfile in pidDir. Engines a killed earlier run left there are the
// study's to reap (studies.OpenSession), under its lock, before the first
// trial.
func NewProcessRunner(log zerolog.Logger, pidDir string, opts ...ProcessOption) *ProcessRunner {
	r := &ProcessRunner{log: log, launcher: &launch.Launcher{Log: log, PidDir: pidDir}}
	for _, o := range opts {
		o(r)
	}
	return r
}

var _ Runner = (*ProcessRunner)(nil)

// Run measures one trial. GPUSeconds is the trial's wall time (launch to
// the end of teardown) times the GPUs the config occupies, on every node
// of a multi-node trial (the launcher decides how many ranks run),
// failures included. Errors wrap an *engines.Failure; an interrupted trial's error
// is also context.Canceled.
func (r *ProcessRunner) Run(ctx context.Context, t Trial) (Result, error) {
	began := time.Now()
	t.Target = WithDevices(t.Target, t.Devices)
	gpus := engines.GPUs(t.Config, t.Target)
	dir := t.Dir
	if dir == "" {
		return Result{}, errors.New("objective: a trial needs its own directory (Trial.Dir) for the engine's log and files")
	}
	res := Result{Metrics: map[string]map[string]float64{}, LogPath: filepath.Join(dir, "engine.log")}
	phase := func(p Phase) {
		if t.OnPhase != nil {
			t.OnPhase(p)
		}
	}
	deployed, err := engines.DeploymentKey(t.Config, t.Target)
	if err != nil {
		return res, err
	}
	key := deployed + "\x00" + t.Target.ServedName() + "\x00" + strings.Join(t.Target.Prefix, " ")
	srv, err := r.server(ctx, t, dir, key, phase)
	if err == nil {
		err = r.measure(ctx, srv, t, &res, phase)
	}
	if srv != nil {
		res.LogPath, res.Ran, res.Fingerprint = srv.LogPath, &srv.Ran, &srv.Fingerprint
		if err == nil && r.reuse {
			r.stop(ctx, r.warm.put(t.Devices, key, srv), phase)
		} else {
			phase(TearingDown)
			if stopErr := srv.Stop(ctx); stopErr != nil {
				r.log.Error().Err(stopErr).Msg("engine teardown")
				err = errors.Join(err, stopErr)
			}
		}
	}
	res.Duration = time.Since(began)
	res.GPUSeconds = res.Duration.Seconds() * float64(gpus)
	return res, err
}

// server returns a ready engine for the trial: the warm one on its
// devices when its command matches, else a fresh launch once every warm
// engine on its devices is gone (retried once on a port conflict, since
// the free port can be taken between choosing and binding it).
func (r *ProcessRunner) server(ctx context.Context, t Trial, dir, key string, phase func(Phase)) (*launch.Server, error) {
	warm, stale := r.warm.claim(t.Devices, key)
	r.stop(ctx, stale, phase)
	if warm != nil {
		return warm, nil
	}
	for attempt := 0; ; attempt++ {
		phase(Launching)
		srv, err := r.launcher.Start(ctx, t.Config, t.Target, dir)
		if err != nil {
			return nil, err
		}
		err = srv.WaitReady(ctx, t.Target.StartupTimeout)
		if err == nil {
			return srv, nil
		}
		if f, ok := engines.AsFailure(err); ok && f.Class == engines.PortConflict && attempt == 0 {
			_ = srv.Stop(ctx)
			continue
		}
		return srv, interrupted(ctx, err)
	}
}

// measure runs every profile against a ready engine. The benchmark is
// cancelled the moment the engine exits, so a crash is reported as one
// instead of as a run of failed requests.
func (r *ProcessRunner) measure(ctx context.Context, srv *launch.Server, t Trial, res *Result, phase func(Phase)) error {
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-srv.Done():
			cancel()
		case <-bctx.Done():
		}
	}()
	run := func(p bench.Profile, opts bench.RunOptions) (bench.Result, error) {
		out, err := bench.Run(bctx, bench.Client{BaseURL: srv.BaseURL, Model: srv.Model}, p, opts)
		if engineDied(srv, ctx.Err() == nil && (err != nil || out.Metrics.Failed > 0)) {
			return out, srv.Failure(engines.Serving)
		}
		if err != nil {
			return out, interrupted(ctx, fmt.Errorf("profile %q: %w", p.Name, err))
		}
		return out, nil
	}
	for _, p := range t.Profiles {
		measure := r.profile
		if p.SearchRate != nil {
			measure = r.searchProfile
		}
		if err := measure(bctx, t, res, p, r.options(t, p, phase), run); err != nil {
			return err
		}
	}
	return nil
}

// runFunc benchmarks a profile on the trial's running engine; its error
// is the engine's failure or the interruption.
type runFunc func(p bench.Profile, opts bench.RunOptions) (bench.Result, error)

// options are the benchmark options of one profile: progress turns the
// phase to benchmarking once warm-up is over, and goodput counts against
// the profile's SLO.
func (r *ProcessRunner) options(t Trial, p bench.Profile, phase func(Phase)) bench.RunOptions {
	opts := r.bench
	opts.Summary = summaryFor(opts.Summary, p)
	opts.StallTimeout = t.Target.StallTimeout
	// A benchmark that can no longer pass stops at once (bench.Hopeless):
	// an engine that hangs would cost a stall timeout per wave otherwise.
	opts.FailFast, opts.MaxFailedFraction = true, t.MaxFailedFraction
	started := false
	user := opts.Progress
	opts.Progress = func(pr bench.Progress) {
		if !started {
			started = true
			phase(Benchmarking)
		}
		if user != nil {
			user(pr)
		}
	}
	if p.Warmup > 0 {
		phase(WarmingUp)
	} else {
		phase(Benchmarking)
		started = true
	}
	return opts
}

// profile runs one profile once, reporting its checkpoints to the judge.
func (r *ProcessRunner) profile(_ context.Context, t Trial, res *Result, p bench.Profile, opts bench.RunOptions, run runFunc) error {
	pruned := false
	if t.Judge != nil {
		opts.OnCheckpoint = func(step int, m bench.Metrics) bool {
			pruned = t.Report(res, p.Name, step, m.Values())
			return pruned
		}
	}
	out, err := run(p, opts)
	if err == nil && p.Quality() {
		scoreReplies(t, res, p, out)
	}
	if pruned && err == nil {
		// Requests abandoned by the stop are not the engine's failure.
		res.Metrics[p.Name] = out.Metrics.Values()
		return ErrPruned
	}
	if err != nil {
		return err
	}
	res.Metrics[p.Name] = withQuality(out.Metrics.Values(), res.Metrics[p.Name])
	if class, example, n := out.Metrics.DominantError(); n > 0 {
		res.addError(p.Name, fmt.Sprintf("%s (%d×): %s", class, n, example))
	}
	return nil
}

// searchProfile runs a profile's rate search on the running engine. A
// step stops as soon as more of its requests missed the SLO than the
// target allows: its verdict can no longer change.
func (r *ProcessRunner) searchProfile(ctx context.Context, t Trial, res *Result, p bench.Profile, opts bench.RunOptions, run runFunc) error {
	v, pruned, err := searchRate(ctx, t, res, p, func(_ context.Context, q bench.Profile) (map[string]float64, error) {
		o := opts
		o.OnCheckpoint = func(_ int, m bench.Metrics) bool { return missedTarget(m, q.NumPrompts, p.SearchRate.Attainment) }
		out, err := run(q, o)
		return out.Metrics.Values(), err
	})
	if err != nil {
		return err
	}
	res.Metrics[p.Name] = v
	if pruned {
		return ErrPruned
	}
	return nil
}

// missedTarget reports whether a step whose requests so far are m can no
// longer reach the target attainment over all total requests.
func missedTarget(m bench.Metrics, total int, target float64) bool {
	n := m.Completed + m.Failed
	missed := float64(n) - m.SLOAttainment*float64(n)
	return m.GoodputSLO != nil && missed > (1-target)*float64(total)+1e-9
}

// crashSettle is how long failed requests make the runner wait for the
// engine's exit to be observed: a dead engine fails requests (connection
// refused) a moment before its process is reaped.
const crashSettle = 3 * time.Second

func engineDied(srv *launch.Server, suspicious bool) bool {
	if !suspicious {
		select {
		case <-srv.Done():
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(crashSettle)
	defer t.Stop()
	select {
	case <-srv.Done():
		return true
	case <-t.C:
		return false
	}
}

// interrupted makes an error caused by ctx ending match ctx's error, so
// the caller tells an interruption from the engine's failure.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("trial interrupted: %w (%w)", ctx.Err(), err)
}

// stop tears down warm engines a trial displaced; their failure to stop
// is the machine's to report, not the trial's.
func (r *ProcessRunner) stop(ctx context.Context, srvs []*launch.Server, phase func(Phase)) {
	if len(srvs) == 0 {
		return
	}
	phase(TearingDown)
	if err := stopAll(ctx, srvs); err != nil {
		r.log.Error().Err(err).Msg("engine teardown")
	}
}

// Close stops the warm engines kept by WithReuse.
func (r *ProcessRunner) Close(ctx context.Context) error {
	return stopAll(ctx, r.warm.drain())
}
