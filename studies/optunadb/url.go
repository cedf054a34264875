package optunadb

import (
	"fmt"
	"net/url"
	"strings"
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
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("optuna storage: not a URL (sqlite:///file.db or postgresql://user@host/db)")
	}
	scheme, _, _ := strings.Cut(u.Scheme, "+") // postgresql+psycopg2 is SQLAlchemy's driver choice
	if scheme != "postgresql" && scheme != "postgres" {
		return Target{}, fmt.Errorf("optuna storage %s: scheme %q is not sqlite or postgresql", u.Redacted(), u.Scheme)
	}
	if _, has := u.User.Password(); has {
		return Target{}, fmt.Errorf("optuna storage %s: a password in the URL would reach logs and shell history; set PGPASSWORD instead", u.Redacted())
	}
	u.Scheme = "postgres"
	return Target{Postgres: true, DSN: u.String(), Shown: raw}, nil
}
