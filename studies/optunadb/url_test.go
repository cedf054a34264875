package optunadb

import (
	"net/url"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		url      string
		pg       bool
		path     string
		dsn, err string
	}{
		{url: "sqlite:///study.db", path: "study.db"},
		{url: "sqlite:////tmp/x/optuna.db", path: "/tmp/x/optuna.db"},
		{url: "sqlite:///a.db?timeout=10", path: "a.db"},
		{url: "postgresql://tuner@db.lan:5432/optuna", pg: true, dsn: "postgres://tuner@db.lan:5432/optuna"},
		{url: "postgresql+psycopg2://tuner@db/optuna", pg: true, dsn: "postgres://tuner@db/optuna"},
		{url: "postgresql://tuner:hunter2@db/optuna", err: "set PGPASSWORD"},
		{url: "sqlite://study.db", err: "three slashes"},
		{url: "sqlite:///", err: "name a database file"},
		{url: "sqlite:///:memory:", err: "name a database file"},
		{url: "mysql://u@h/db", err: `scheme "mysql"`},
		{url: "study.db", err: "is not sqlite or postgresql"},
		// Secrets anywhere in the URL, a missing host and unknown keys.
		{url: "postgresql://tuner@db/optuna?password=hunter2", err: "a password in the URL (password)"},
		{url: "postgresql://tuner@db/optuna?sslpassword=hunter2", err: "a password in the URL (sslpassword)"},
		{url: "postgresql://tuner@db/optuna?sslmode=require&Password=hunter2", err: `did you mean "password"`},
		{url: "postgresql://", err: "names no host"},
		{url: "postgresql:///optuna", err: "names no host"},
		{url: "postgresql://tuner@db/optuna?sslmod=require", err: `did you mean "sslmode"`},
	}
	for _, c := range cases {
		got, err := ParseURL(c.url)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one saying %q", c.url, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("%s: the error quotes the password: %v", c.url, err)
			}
			continue
		}
		if err != nil || got.Postgres != c.pg || got.Path != c.path || got.DSN != c.dsn {
			t.Errorf("%s: got %+v, %v", c.url, got, err)
		}
	}
}

// A URL never panics the parser, and whatever it accepts keeps no
// password.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"sqlite:///a.db", "postgresql://u@h/db", "postgresql://u:p@h/db", "sqlite:", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseURL(s)
		if err != nil {
			return
		}
		if got.Postgres == (got.Path != "") {
			t.Errorf("%q: neither or both of a DSN and a path: %+v", s, got)
		}
		if u, err := url.Parse(got.DSN); got.Postgres && (err != nil || u.User != nil && func() bool { _, has := u.User.Password(); return has }()) {
			t.Errorf("%q: accepted a DSN with a password or that does not parse: %+v", s, got)
		}
	})
}

// A SQLite target in a missing directory, or on a directory, is refused
// before the study is read; SQLite said "unable to open database file"
// after it (exit 1; issue 48, fifth pass).
func TestCheckPlace(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		url, want string
	}{
		{"sqlite:///" + dir + "/no/such/dir/x.db", "does not exist"},
		{"sqlite:///" + dir, "is a directory"},
	} {
		tg, err := ParseURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.CheckPlace(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.url, err, c.want)
		}
	}
	for _, ok := range []string{"sqlite:///" + dir + "/x.db", "sqlite:///x.db", "postgresql://u@h/db"} {
		tg, err := ParseURL(ok)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.CheckPlace(); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
