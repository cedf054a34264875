package preflight

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// Storage checks the study's storage and says where it is.
type Storage func(ctx context.Context) (where string, err error)

// Local is the storage check of a study.db: an existing one opens as a
// study (read-only), and its directory — or the nearest one that exists,
// where the study would be created — is writable.
func Local(d studydir.Dir, w World) Storage {
	return func(ctx context.Context) (string, error) {
		db := d.DB()
		if _, err := w.Stat(db); err == nil {
			st, err := store.Open(ctx, db, store.ReadOnly)
			if err != nil {
				return db, err
			}
			st.Close()
			return db + " (resumed)", w.Writable(filepath.Dir(db))
		}
		dir := filepath.Dir(db)
		for {
			_, err := w.Stat(dir)
			if err == nil {
				return db + " (new)", w.Writable(dir)
			}
			if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
				return db, fmt.Errorf("%s: %w", dir, err)
			}
			dir = filepath.Dir(dir)
		}
	}
}

// Postgres is the storage check of a study in shared storage.
func Postgres(url, study string) Storage {
	return func(ctx context.Context) (string, error) {
		return store.Redact(url), store.ProbePostgres(ctx, url, study)
	}
}

func checkStorage(ctx context.Context, s Storage) Check {
	where, err := s(ctx)
	if err != nil {
		return fail("storage", "%s: %v", where, err)
	}
	return ok("storage", "%s is reachable and writable", where)
}
