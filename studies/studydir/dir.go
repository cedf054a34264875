package studydir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Dir is one study's directory, and the only code that knows its layout:
//
//	<root>/<name>/study.db       the trials (SQLite, with -wal/-shm beside it)
//	<root>/<name>/lock           who is running the study (see Lock)
//	<root>/<name>/trial-N/       engine.log and generated files of trial N
//	<root>/<name>/engines/       pidfiles of engines that are running
//
// `[study] storage` may put study.db elsewhere; the rest then lives
// beside it.
type Dir struct {
	path string
	db   string
}

// DefaultRoot is where studies live unless --dir says otherwise.
const DefaultRoot = "studies"

// For is the directory of the study a space declares. A study in
// shared storage keeps its trial directories (engine logs) under root,
// by name, on each worker's host.
func For(root string, sp *space.Space) Dir {
	if sp.Study.Storage != "" && !store.IsPostgres(sp.Study.Storage) {
		return Dir{path: filepath.Dir(sp.Study.Storage), db: sp.Study.Storage}
	}
	return dirNamed(root, sp.Study.Name)
}

// Of resolves a study argument: a study.db path, or a name under root.
func Of(root, arg string) Dir {
	if strings.HasSuffix(arg, ".db") {
		return Dir{path: filepath.Dir(arg), db: arg}
	}
	return dirNamed(root, arg)
}

func dirNamed(root, name string) Dir {
	p := filepath.Join(root, name)
	return Dir{path: p, db: filepath.Join(p, "study.db")}
}

// List returns the studies under root.
func List(root string) []Dir {
	paths, _ := filepath.Glob(filepath.Join(root, "*", "study.db"))
	out := make([]Dir, len(paths))
	for i, p := range paths {
		out[i] = Dir{path: filepath.Dir(p), db: p}
	}
	return out
}

// Path is the directory.
func (d Dir) Path() string { return d.path }

// DB is the study database file.
func (d Dir) DB() string { return d.db }

// Name is the study's directory name.
func (d Dir) Name() string { return filepath.Base(d.path) }

// Trial is trial n's own directory.
func (d Dir) Trial(n int) string { return filepath.Join(d.path, fmt.Sprintf("trial-%d", n)) }

// Engines is where the pidfiles of the study's running engines are.
func (d Dir) Engines() string { return filepath.Join(d.path, "engines") }

// Exists reports whether the study has a database.
func (d Dir) Exists() bool {
	_, err := os.Stat(d.db)
	return err == nil
}

// OpenReadOnly opens the study for reading; it never writes.
func (d Dir) OpenReadOnly(ctx context.Context) (*store.Store, error) {
	return store.Open(ctx, d.db, store.ReadOnly)
}

// LivenessOf reads d's lock file (read-only: show never writes) for the
// liveness of its running trials' holders.
func (d Dir) LivenessOf() store.Liveness {
	l := store.SharedLiveness()
	f, err := os.Open(filepath.Join(d.path, "lock"))
	if err != nil {
		return l
	}
	defer f.Close()
	if h, err := readHolder(f); err == nil && h.PID != 0 {
		l.Lock = &h
	}
	return l
}

// Lock takes the study's write lock, creating the directory if needed.
func (d Dir) Lock(me store.Holder, log zerolog.Logger) (*Lock, error) {
	if err := os.MkdirAll(d.path, 0o755); err != nil {
		return nil, fmt.Errorf("create study directory: %w", err)
	}
	return acquire(filepath.Join(d.path, "lock"), me, log)
}

// ReapStale stops engines an earlier, killed servetune left running in
// this study; they would hold the GPUs and make every new trial look
// out of memory. Only the lock holder may call it: a live run's engines
// are not stale.
func (d Dir) ReapStale(ctx context.Context, log zerolog.Logger) error {
	if err := launch.ReapStale(ctx, d.Engines(), log); err != nil {
		return fmt.Errorf("stopping engines left by an earlier run: %w", err)
	}
	return nil
}

// Remove deletes the study's trials (--fresh): the database with its WAL
// files and every trial directory. The lock file stays: it is held.
func (d Dir) Remove() error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(d.db + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--fresh: %w", err)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(d.path, "trial-*"))
	for _, t := range dirs {
		if err := os.RemoveAll(t); err != nil {
			return fmt.Errorf("--fresh: %w", err)
		}
	}
	return nil
}
