package studies

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// Session is a study opened for running: its lock is held, engines left
// by a killed predecessor are stopped, and its store matches the space.
type Session struct {
	Dir   studydir.Dir
	Store *store.Store
	lock  *studydir.Lock
}

// OpenOptions say how to open a study for running.
type OpenOptions struct {
	// Fresh deletes the study's trials first.
	Fresh bool
	// Source is the space file's text, stored with a new study so that
	// `show` and `best` can rebuild the space later.
	Source string
	// Parse re-reads a stored space file, to compare it with sp.
	Parse  func(ctx context.Context, file, src string) (*space.Space, error)
	Holder store.Holder
	Log    zerolog.Logger
	// StoreOutage bounds how long OpenShared waits for a store it cannot
	// reach (default DefaultStoreOutage), as a running worker does.
	StoreOutage time.Duration
	// StoreConnect bounds instead the wait for a store never reached
	// since the start (0: StoreOutage): a mistyped host or port fails
	// within seconds (store.DefaultStoreConnect is the CLI's default).
	StoreConnect time.Duration
	// Check, when set, runs OpenShared's first reads and writes of the
	// study after the space check, inside the same ride-out: a store that
	// goes down in the seconds after connecting is waited for too.
	Check func(ctx context.Context, store *store.Store) error
}

// ErrSpaceChanged says a study exists with a different search space.
var ErrSpaceChanged = errors.New("study was created from a different search space")

// OpenSession locks the study, then (in this order, so nothing is reaped
// or deleted under a live run) stops stale engines, deletes the old
// trials with Fresh, opens or creates the store and checks the space.
func OpenSession(ctx context.Context, d studydir.Dir, sp *space.Space, o OpenOptions) (*Session, error) {
	lock, err := d.Lock(o.Holder, o.Log)
	if err != nil {
		return nil, err
	}
	s := &Session{Dir: d, lock: lock}
	if err := s.open(ctx, sp, o); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

func (s *Session) open(ctx context.Context, sp *space.Space, o OpenOptions) error {
	if err := s.Dir.ReapStale(ctx, o.Log); err != nil {
		return err
	}
	if o.Fresh {
		if err := s.Dir.Remove(); err != nil {
			return err
		}
	}
	store, err := store.Open(ctx, s.Dir.DB(), store.Create)
	if err != nil {
		return err
	}
	s.Store = store
	return checkSpace(ctx, store, sp, o)
}

// Close closes the store and releases the lock.
func (s *Session) Close() error {
	var err error
	if s.Store != nil {
		err = s.Store.Close()
	}
	return errors.Join(err, s.lock.Release())
}

// OpenShared opens a study in shared storage for one worker among many:
// no study lock (peers on other hosts hold none either — each trial is
// leased), no reaping or deletion (those need the lock), the store
// created on first use and checked against the space. d holds this
// worker's trial-N/ directories.
func OpenShared(ctx context.Context, storage string, d studydir.Dir, sp *space.Space, o OpenOptions) (*Session, error) {
	if !store.IsPostgres(storage) {
		return nil, store.ErrNotShared
	}
	s := &Session{Dir: d}
	o.StoreOutage = cmp.Or(max(o.StoreOutage, 0), store.DefaultStoreOutage)
	out := &store.Outage{Bound: o.StoreOutage, Connect: max(o.StoreConnect, 0), Where: store.Address(storage)}
	err := store.RideOut(ctx, out, o.Log, func(ctx context.Context) error {
		store, err := store.OpenPostgres(ctx, storage, sp.Study.Name, store.Create)
		if err != nil {
			return err
		}
		if err := checkSpace(ctx, store, sp, o); err != nil {
			return errors.Join(err, store.Close())
		}
		if o.Check != nil {
			if err := o.Check(ctx, store); err != nil {
				return errors.Join(err, store.Close())
			}
		}
		s.Store = store
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}
