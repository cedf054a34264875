package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
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
			&cli.DurationFlag{Name: "lease", Value: store.DefaultLease, Usage: "how long a trial stays this worker's without a heartbeat"},
			storeOutageFlag(), storeConnectFlag(), waitForStoreFlag(),
			&cli.IntFlag{Name: "n-trials", Usage: "override study.n_trials"},
			repeatFlag(), confirmFlag(), budgetFlag(), noPruneFlag(),
			gpusFlag(),
			nodesFlag(),
			enginesFlag(),
			cardsFlag(),
			dryRunFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return oneSpaceFile("worker", c.Args().Slice())
			}
			sp, err := e.loadRunSpace(c)
			if err != nil {
				return err
			}
			if c.Bool("dry-run") {
				return e.dryRun(c, sp)
			}
			devices, err := workerDevices(c.String("gpus"))
			if err != nil {
				return err
			}
			url, err := storageURL(c.String("storage"), sp)
			if err != nil {
				return err
			}
			o := workerOptions{storage: url, id: c.String("worker-id"), lease: c.Duration("lease"), trials: trialOptions(c, devices)}
			if err := o.check(sp); err != nil {
				return err
			}
			return e.work(c.Context, sp, c.Args().First(), o)
		},
	}
}

// workerOptions are the worker command's flags.
type workerOptions struct {
	storage, id string
	lease       time.Duration
	trials      runOptions
}

// storeOutageFlag bounds how long run and worker ride out a study store
// they cannot reach (a PostgreSQL restart) before they stop.
func storeOutageFlag() cli.Flag {
	return &cli.DurationFlag{Name: "store-outage", Value: store.DefaultStoreOutage, EnvVars: []string{"SERVETUNE_STORE_OUTAGE"},
		Usage: "ride out an unreachable study store this long (the trials in flight keep running; their results are written when it is back), then stop"}
}

// storeConnectFlag bounds the wait for a study store never reached
// since the start: a mistyped host or port fails within seconds.
func storeConnectFlag() cli.Flag {
	return &cli.DurationFlag{Name: "store-connect-timeout", Value: store.DefaultStoreConnect, EnvVars: []string{"SERVETUNE_STORE_CONNECT_TIMEOUT"},
		Usage: "give up on a study store that has not answered once since the start after this long (an outage after it answered is ridden out for --store-outage)"}
}

// waitForStoreFlag asks to wait for a store not up yet (started with
// the workers) as for an outage.
func waitForStoreFlag() cli.Flag {
	return &cli.BoolFlag{Name: "wait-for-store", EnvVars: []string{"SERVETUNE_WAIT_FOR_STORE"},
		Usage: "wait for a study store that does not answer at the start for up to --store-outage, not --store-connect-timeout"}
}

// storeConnect is the connect bound the flags ask for: 0 (the outage
// bound) with --wait-for-store.
func storeConnect(c *cli.Context) time.Duration {
	if c.Bool("wait-for-store") {
		return 0
	}
	return c.Duration("store-connect-timeout")
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

// storageURL is the shared storage a command uses (studies.StorageURL:
// --storage, then $SERVETUNE_STORAGE, then the space's); a value that
// does not parse is bad input.
func storageURL(flag string, sp *space.Space) (string, error) {
	url, err := studies.StorageURL(flag, os.Getenv(storageEnv), "$"+storageEnv, sp)
	if err != nil {
		return "", usageError{err}
	}
	return url, nil
}

func (o workerOptions) check(sp *space.Space) error {
	switch {
	case o.storage == "":
		return usagef("worker needs --storage postgres://… (or $%s)", storageEnv)
	case !store.IsPostgres(o.storage):
		return usageError{fmt.Errorf("--storage %s: %w", store.Redact(o.storage), store.ErrNotShared)}
	}
	if err := checkLeaseAndID(o.lease, o.id); err != nil {
		return err
	}
	return o.trials.check(sp)
}

// checkLeaseAndID refuses a --lease and a --worker-id no worker can hold,
// for a run and its dry run alike.
func checkLeaseAndID(lease time.Duration, id string) error {
	switch {
	case lease <= 0:
		return usagef("--lease must be positive")
	case lease < minLease:
		return usagef("--lease %v is shorter than %v: heartbeats come every third of it, and a lease that runs out between two store round trips hands a running trial to a peer", lease, minLease)
	}
	return checkWorkerID(id)
}

// minLease is the shortest --lease: a second, heartbeats every 333 ms.
const minLease = time.Second

// maxWorkerID bounds --worker-id in bytes: it is stored with every lease
// and printed in logs (a host:pid is a few dozen).
const maxWorkerID = 256

// checkWorkerID refuses a --worker-id the store and the logs cannot hold
// as one name: a control character (a newline splits every log line that
// names the worker) or one too long. Checked before connecting: it was
// found only at the first claim, after the connect (exit 1).
func checkWorkerID(id string) error {
	switch {
	case strings.ContainsFunc(id, unicode.IsControl):
		return usagef("--worker-id %q holds a control character: give a name such as host-1", id)
	case len(id) > maxWorkerID:
		return usagef("--worker-id is %d bytes, more than the %d a worker's name may be", len(id), maxWorkerID)
	}
	return nil
}

// work runs this worker's share of the study: the same loop as run,
// with the study's trials claimed under leases in shared storage.
func (e *env) work(ctx context.Context, sp *space.Space, file string, o workerOptions) error {
	if err := probeOptuna(ctx, o.trials.optuna); err != nil {
		return err
	}
	oo, err := e.openOptions(file, o.trials.engines)
	if err != nil {
		return err
	}
	oo.StoreOutage, oo.StoreConnect = o.trials.storeOutage, o.trials.storeConnect
	// The study's first reads ride out an outage with the connection.
	var cards *sim.Cards
	var trials []store.Trial
	oo.Check = func(ctx context.Context, st *store.Store) (err error) {
		cards, trials, err = e.readStudy(ctx, sp, st)
		return err
	}
	sess, err := studies.OpenShared(ctx, o.storage, studydir.For(o.trials.root, sp), sp, oo)
	if err != nil {
		return openError(err)
	}
	defer sess.Close()
	if err := e.checkDrift(ctx, sp, trials); err != nil {
		return err
	}
	runner, err := newRunner(e, sp, sess.Dir, cards)
	if err != nil {
		return err
	}
	if c, ok := runner.(interface{ Close(context.Context) error }); ok {
		defer c.Close(context.WithoutCancel(ctx))
	}
	e.log.Info().Str("storage", store.Redact(o.storage)).Str("study", sp.Study.Name).Int("workers", o.trials.workers).Msg("worker joined the study")
	ro := o.trials
	ro.shared, ro.workerID, ro.lease, ro.cards = true, o.id, o.lease, cards
	return e.loop(ctx, sp, sess, runner, ro)
}
