package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// storageEnv holds the storage URL when --storage is not given, so its
// password stays out of process listings and shell history.
const storageEnv = "SERVETUNE_STORAGE"

func workerCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "worker",
		Usage:     "join a study in shared storage and run its trials until it has n_trials (any number of workers on any number of hosts)",
		ArgsUsage: "SPACE.toml",
		Flags: []cli.Flag{
			dirFlag(),
			&cli.StringFlag{Name: "storage", Usage: "the study's shared storage, postgres://user@host/db (default $" + storageEnv + "; password from the URL or PGPASSWORD)"},
			&cli.IntFlag{Name: "workers", Value: 1, Usage: "trials this process runs at once"},
			&cli.StringFlag{Name: "worker-id", Usage: "this worker's name in trial leases (default host:pid)"},
			&cli.DurationFlag{Name: "lease", Value: studies.DefaultLease, Usage: "how long a trial stays this worker's without a heartbeat"},
			&cli.IntFlag{Name: "n-trials", Usage: "override study.n_trials"},
			gpusFlag(),
			enginesFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("worker takes one search-space file, got %d arguments", c.NArg())
			}
			sp, err := loadSpace(c.Context, c.Args().First(), c.StringSlice("engines")...)
			if err != nil {
				return err
			}
			if n := c.Int("n-trials"); n > 0 {
				sp.Study.NTrials = n
			}
			devices, err := workerDevices(c.String("gpus"))
			if err != nil {
				return err
			}
			o := workerOptions{devices: devices, storage: storageURL(c.String("storage")), workers: c.Int("workers"), id: c.String("worker-id"), lease: c.Duration("lease"), root: c.String("dir"), engines: c.StringSlice("engines")}
			if err := o.check(sp); err != nil {
				return err
			}
			return e.work(c.Context, sp, c.Args().First(), o)
		},
	}
}

// workerOptions are the worker command's flags.
type workerOptions struct {
	storage, id, root string
	engines           []string // --engines files
	workers           int
	lease             time.Duration
	devices           []string
}

func gpusFlag() cli.Flag {
	return &cli.StringFlag{Name: "gpus", Usage: "GPUs this process packs trials onto, e.g. 0-7 (default: SLURM_JOB_GPUS, CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES; none: no packing)"}
}

// workerDevices is --gpus, else the GPUs the scheduler gave the process.
func workerDevices(flag string) ([]string, error) {
	if flag != "" {
		ds, err := objective.ParseDevices(flag)
		if err != nil {
			return nil, usagef("--gpus: %v", err)
		}
		return ds, nil
	}
	ds, _, err := objective.DevicesFromEnv(os.Getenv)
	if err != nil {
		return nil, usageError{err}
	}
	return ds, nil
}

// storageURL is --storage, else $SERVETUNE_STORAGE.
func storageURL(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv(storageEnv)
}

func (o workerOptions) check(sp *space.Space) error {
	switch {
	case o.storage == "":
		return usagef("worker needs --storage postgres://… (or $%s)", storageEnv)
	case !studies.IsPostgres(o.storage):
		return usageError{fmt.Errorf("--storage %s: %w", studies.Redact(o.storage), studies.ErrNotShared)}
	case o.lease <= 0:
		return usagef("--lease must be positive")
	}
	return checkWorkers(sp, o.workers, o.devices)
}

// work runs this worker's share of the study.
func (e *env) work(ctx context.Context, sp *space.Space, file string, o workerOptions) error {
	oo, err := e.openOptions(file, o.engines)
	if err != nil {
		return err
	}
	sess, err := studies.OpenShared(ctx, o.storage, studies.DirFor(o.root, sp), sp, oo)
	if err != nil {
		return openError(err)
	}
	defer sess.Close()
	if err := e.checkStudy(ctx, sp, sess.Store); err != nil {
		return err
	}
	runner, err := newRunner(e, sp, sess.Dir)
	if err != nil {
		return err
	}
	e.log.Info().Str("storage", studies.Redact(o.storage)).Str("study", sp.Study.Name).Int("workers", o.workers).Msg("worker joined the study")
	err = studies.Run(ctx, studies.RunOptions{
		Space: sp, Store: sess.Store, Runner: runner, Dir: sess.Dir, Log: e.log,
		Workers: o.workers, WorkerID: o.id, Lease: o.lease, Shared: true, Devices: o.devices,
		Search: search.Options{Prior: newSimPrior(sp)},
	})
	if errors.Is(err, studies.ErrTimeout) || errors.Is(err, studies.ErrBudget) {
		return nil
	}
	return err
}
