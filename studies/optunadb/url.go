package optunadb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/servetune/servetune/studies/store/pgurl"
)

// Target is where an Optuna storage URL points.
type Target struct {
	// Postgres is true for postgresql:// URLs; DSN is then a URL pgx
	// accepts. For SQLite, Path is the database file.
	Postgres bool
	DSN      string
	Path     string
	// Shown is the URL as logs and errors may print it.
	Shown string
}

// ParseURL reads an Optuna (SQLAlchemy) storage URL: sqlite:///relative.db,
// sqlite:////absolute.db, or postgresql[+driver]://user@host[:port]/db. A
// password in the URL is refused: it would end up in shell history and
// logs; PGPASSWORD (or ~/.pgpass) supplies it.
func ParseURL(raw string) (Target, error) {
	switch {
	case strings.HasPrefix(raw, "sqlite:///"):
		p := strings.TrimPrefix(raw, "sqlite:///")
		if i := strings.IndexByte(p, '?'); i >= 0 {
			p = p[:i]
		}
		if p == "" || p == ":memory:" {
			return Target{}, fmt.Errorf("optuna storage %q: name a database file (sqlite:///study.db or sqlite:////abs/path.db)", raw)
		}
		return Target{Path: p, Shown: raw}, nil
	case strings.HasPrefix(raw, "sqlite:"):
		return Target{}, fmt.Errorf("optuna storage %q: SQLite URLs have three slashes before a relative path (sqlite:///study.db) and four before an absolute one", raw)
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return Target{}, fmt.Errorf("optuna storage: not a URL: sqlite:///file.db or postgresql://user@host/db, and it is not sqlite or postgresql")
	}
	base, _, _ := strings.Cut(scheme, "+") // postgresql+psycopg2 is SQLAlchemy's driver choice
	if base != "postgresql" && base != "postgres" {
		return Target{}, fmt.Errorf("optuna storage: scheme %q is not sqlite or postgresql", safeScheme(scheme))
	}
	// The storage URL's own parser: host required, connection keys
	// checked (did-you-mean), every secret known so none is printed.
	st, err := pgurl.Parse("postgres://" + rest)
	if err != nil {
		return Target{}, fmt.Errorf("optuna storage: %w", err)
	}
	if keys := st.SecretKeys(); len(keys) > 0 {
		return Target{}, fmt.Errorf("optuna storage %s: a password in the URL (%s) would reach logs and shell history; set PGPASSWORD (or a passfile) instead",
			st, strings.Join(keys, ", "))
	}
	return Target{Postgres: true, DSN: st.DSN, Shown: st.String()}, nil
}

// safeScheme is a scheme fit to quote: schemes are short names, but a
// malformed URL can put anything before its "://".
func safeScheme(s string) string {
	if len(s) > 30 || strings.ContainsAny(s, "@:/?&= ") {
		return "(malformed)"
	}
	return s
}

// CheckPlace says why a SQLite target's database cannot be created
// where it points, before anything is opened: its directory missing or
// not a directory (SQLite's own error, "unable to open database file
// (14)", came after the study was read, exit 1), or the path itself a
// directory. A PostgreSQL target is the server's to judge (Probe).
func (t Target) CheckPlace() error {
	if t.Postgres {
		return nil
	}
	if err := sqliteDirProblem(t.Path); err != nil {
		return fmt.Errorf("optuna storage %q: %w", t.Shown, err)
	}
	return nil
}

func sqliteDirProblem(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory, not a database file", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist: create it, or name a file in one that does", dir)
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}
