package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

func runCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run (or resume) the study a search-space file declares",
		ArgsUsage: "SPACE.toml",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fresh", Usage: "delete the study of the same name and start over"},
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "measure each config N times (noise estimates)"},
			&cli.IntFlag{Name: "n-trials", Usage: "override study.n_trials"},
			&cli.DurationFlag{Name: "budget", Usage: "stop after this much GPU time (engine start + benchmark × GPUs, failures included), e.g. 8h"},
			&cli.BoolFlag{Name: "no-prune", Usage: "never stop a trial early"},
			&cli.StringSliceFlag{Name: "warm-start", Usage: "run the winners (best or Pareto front) of an earlier STUDY first (name under studies/ or a study.db path; repeatable)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("run takes one search-space file, got %d arguments", c.NArg())
			}
			sp, err := loadSpace(c.Args().First())
			if err != nil {
				return err
			}
			if n := c.Int("n-trials"); n > 0 {
				sp.Study.NTrials = n
			}
			if c.Int("repeat") < 1 {
				return usagef("--repeat must be at least 1")
			}
			if c.Duration("budget") < 0 {
				return usagef("--budget must be positive")
			}
			opts := runOptions{fresh: c.Bool("fresh"), repeat: c.Int("repeat"), budget: c.Duration("budget"), prune: !c.Bool("no-prune")}
			for _, name := range c.StringSlice("warm-start") {
				cfgs, err := warmStart(c.Context, "studies", name, sp)
				if err != nil {
					return err
				}
				opts.enqueue = append(opts.enqueue, cfgs...)
			}
			return e.runStudy(c.Context, sp, c.Args().First(), opts)
		},
	}
}

// studyPath is where a study's database lives.
func studyPath(sp *space.Space) string {
	if sp.Study.Storage != "" {
		return sp.Study.Storage
	}
	return filepath.Join("studies", sp.Study.Name, "study.db")
}

// runOptions are the run command's flags.
type runOptions struct {
	fresh   bool
	repeat  int
	budget  time.Duration
	prune   bool
	enqueue []space.Config
}

func (e *env) runStudy(ctx context.Context, sp *space.Space, file string, o runOptions) error {
	path := studyPath(sp)
	dir := filepath.Dir(path)
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	// An engine left behind by a kill -9'd servetune would hold the GPUs.
	// Its pidfile is in the study directory: reap it before --fresh
	// deletes anything.
	if err := engines.ReapStale(ctx, dir, e.log); err != nil {
		return err
	}
	if o.fresh {
		if err := removeStudy(path); err != nil {
			return err
		}
	}
	store, err := studies.Open(ctx, path, true)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := e.checkSameSpace(ctx, store, string(src), file); err != nil {
		return err
	}
	runner, err := newRunner(e, sp, dir)
	if err != nil {
		return err
	}
	if c, ok := runner.(interface{ Close(context.Context) error }); ok {
		// A server kept for reuse is torn down however the run ends.
		defer c.Close(context.WithoutCancel(ctx))
	}
	view := newProgress(e, sp)
	ro := studies.RunOptions{
		Space: sp, Store: store, Runner: runner, Dir: dir, Repeat: o.repeat, Budget: o.budget,
		Enqueue: append(append([]space.Config(nil), sp.Enqueue...), o.enqueue...),
		Log:     e.log, OnEvent: view.event,
	}
	if o.prune {
		rule := search.DefaultPruneRule()
		ro.Prune = &rule
	}
	err = studies.Run(ctx, ro)
	view.close()
	switch {
	case errors.Is(err, studies.ErrTimeout):
		e.log.Info().Dur("timeout", sp.Study.Timeout).Msg("study timeout reached")
	case errors.Is(err, studies.ErrBudget):
		e.log.Info().Dur("budget", o.budget).Msg("GPU-time budget spent")
	case err != nil:
		return err
	}
	trials, terr := store.Trials(context.WithoutCancel(ctx))
	if terr != nil {
		return terr
	}
	fmt.Fprintln(e.stdout)
	if err := studies.BuildReport(sp, trials, renderCommand(sp)).Text(e.stdout); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nStudy stored in %s (servetune show %s, servetune best %s).\n", path, sp.Study.Name, sp.Study.Name)
	return nil
}

// warmStart returns the winners of an earlier study, cut down to the knobs
// of this space.
func warmStart(ctx context.Context, dir, name string, sp *space.Space) ([]space.Config, error) {
	path := studyDB(dir, name)
	if _, err := os.Stat(path); err != nil {
		return nil, usagef("--warm-start: no study %q (looked for %s)", name, path)
	}
	old, trials, err := openStudy(ctx, path)
	if err != nil {
		return nil, err
	}
	var out []space.Config
	for _, w := range studies.BuildReport(old, trials, nil).Winners {
		c := space.Config{}
		for k, v := range w.Config {
			if _, ok := sp.Param(k); ok || (k == "engine" && sp.Target.Engine != "") {
				c[k] = v
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// checkSameSpace stores the space with a new study and refuses to resume
// a study whose space changed (trials would not be comparable).
func (e *env) checkSameSpace(ctx context.Context, store *studies.Store, src, file string) error {
	old, err := store.Meta(ctx, "space")
	if err != nil {
		return err
	}
	if old == "" {
		if err := store.SetMeta(ctx, "space_file", file); err != nil {
			return err
		}
		return store.SetMeta(ctx, "space", src)
	}
	if old != src {
		return usagef("study in %s was created from a different version of %s; run with --fresh to start over, or give the study another name", store.Path(), file)
	}
	return nil
}

func removeStudy(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--fresh: %w", err)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "trial-*"))
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("--fresh: %w", err)
		}
	}
	return nil
}

func newRunner(e *env, sp *space.Space, dir string) (objective.Runner, error) {
	switch sp.Target.Runner {
	case "process":
		return objective.NewProcessRunner(e.log, dir, objective.WithReuse()), nil
	default:
		return objective.NewSimRunner(), nil
	}
}

// renderCommand gives reports the real engine's serving command.
func renderCommand(sp *space.Space) studies.Renderer {
	return func(c space.Config) (string, error) {
		cmd, err := engines.Render(sp.WithTargetEngine(c), sp.Target)
		if err != nil {
			return "", err
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
