package pgurl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestParseStorage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		in, shown  string
		postgres   bool
		secretKeys []string
		refused    string // part of the error; "" when accepted
	}{
		{in: "", shown: ""},
		{in: "studies/x/study.db", shown: "studies/x/study.db"},
		{in: "postgres://u@h/db", shown: "postgres://u@h/db", postgres: true},
		{in: "POSTGRESQL://u@h/db", shown: "postgresql://u@h/db", postgres: true},
		{in: "postgresql://u:hunter2@h:5432/db?sslmode=disable", shown: "postgresql://u:xxxxx@h:5432/db?sslmode=disable", postgres: true, secretKeys: []string{"user:password@"}},
		{in: "postgres://u@h/db?password=hunter2&sslpassword=k3y", shown: "postgres://u@h/db?password=xxxxx&sslpassword=xxxxx", postgres: true, secretKeys: []string{"password", "sslpassword"}},
		{in: "postgres://u@h/db?passfile=/etc/pgpass", shown: "postgres://u@h/db?passfile=/etc/pgpass", postgres: true},
		{in: "postgres://hunter2:hunter2@h/db", shown: "postgres://xxxxx:xxxxx@h/db", postgres: true, secretKeys: []string{"user:password@"}},
		{in: "host=h dbname=d password=hunter2", shown: "host=h dbname=d password=xxxxx", postgres: true, secretKeys: []string{"password"}},
		{in: `  host = h  password = 'a b\'c' `, shown: "host=h password=xxxxx", postgres: true, secretKeys: []string{"password"}},
		{in: "host=h passfile=/home/u/.pgpass sslkey=/k.pem", shown: "host=h passfile=/home/u/.pgpass sslkey=/k.pem", postgres: true},
		{in: "host=h PASSWORD=hunter2", refused: `"PASSWORD" is written in the wrong case`},
		{in: "postgres://u@h/db?Password=hunter2", refused: `did you mean "password"`},
		{in: "host=h password='hunter2", refused: "unterminated quote"},
		{in: "host=h dbname", refused: "has no ="},
		{in: "postgres:/h/db", refused: `needs two slashes after "postgres:"`},
		{in: "postgresql:h/db", refused: "needs two slashes"},
		{in: "mysql://u@h/db", refused: `unknown storage scheme "mysql:"`},
		{in: "sqlite:///x.db", refused: "unknown storage scheme"},
		{in: "file:x.db", refused: "unknown storage scheme"},
		{in: "postgres://u:hun%zzter2@h/db", refused: "invalid %-escape"},
		{in: "postgres://u@h x/db", refused: "a space (write %20)"},
		{in: "postgres://u@h/db?sslmode", refused: `"sslmode" has no =`},
		{in: "postgres://u@h/db?password=a=b", refused: "a second ="},
		{in: "postgres://u:pw1@ss@h/db", shown: "postgres://u:xxxxx@ss@h/db", postgres: true, secretKeys: []string{"user:password@"}},
		{in: "postgres://u: spaced%20pw @h/db", shown: "postgres://u:xxxxx@h/db", postgres: true, secretKeys: []string{"user:password@"}},
		{in: dir, refused: "is a directory"},
		{in: "/dev/null", refused: "is not a regular file"},
		{in: "some/dir/", refused: "names a directory"},
		{in: "x.db?mode=ro", refused: "cannot contain ? or #"},
		{in: "   ", refused: "is blank"},
		// A server must be named, and every key must be one libpq knows.
		{in: "postgresql://", refused: "names no host"},
		{in: "postgres:///db", refused: "names no host"},
		{in: "postgres://u@:5432/db", refused: "names no host"},
		{in: "postgres:///db?host=/var/run/postgresql", shown: "postgres:///db?host=/var/run/postgresql", postgres: true},
		{in: "postgres://u@h/db?sslmod=disable", refused: `unknown connection key "sslmod"; did you mean "sslmode"?`},
		{in: "postgres://u@h/db?pasword=hunter2", refused: `unknown connection key "pasword"; did you mean "password"?`},
		{in: "postgres://u@h/db?frobnicate=1", refused: `unknown connection key "frobnicate"`},
		{in: "host=h dbnmae=x", refused: `unknown connection key "dbnmae"; did you mean "dbname"?`},
		{in: "dbname=x user=u", refused: "names no host"},
		{in: "hots=h dbname=x", refused: `unknown connection key "hots"; did you mean "host"?`},
		{in: "service=prod", shown: "service=prod", postgres: true},
	} {
		st, err := Parse(c.in)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("Parse(%q) = %v, want an error with %q", c.in, err, c.refused)
			}
			if err != nil && strings.Contains(strings.ToLower(err.Error()), "hunter2") {
				t.Errorf("Parse(%q): the error quotes the secret: %v", c.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if st.String() != c.shown || st.IsPostgres() != c.postgres || !slices.Equal(st.SecretKeys(), c.secretKeys) {
			t.Errorf("Parse(%q) = %q postgres=%v secrets=%v, want %q %v %v", c.in, st, st.IsPostgres(), st.SecretKeys(), c.shown, c.postgres, c.secretKeys)
		}
	}
}

// The secrets a connection may use include those the driver reads from
// the environment and the password file, and MaskSecrets hides every
// form of them, in any case.
func TestStorageSecretsAndMasking(t *testing.T) {
	pgpass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pgpass, []byte("# comment\nh:5432:db:u:fr0m\\:file\n*:*:*:*:other-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := Parse("host=h password=in-dsn passfile=" + pgpass)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PGPASSWORD": "from-env", "PGPASSFILE": "/nowhere"}
	got := st.Secrets(func(k string) string { return env[k] })
	want := []string{"in-dsn", "from-env", "fr0m:file", "other-secret"}
	if !slices.Equal(got, want) {
		t.Fatalf("Secrets = %q, want %q (the DSN's passfile before $PGPASSFILE)", got, want)
	}
	text := "a IN-DSN b c From-Env d fr0m%3Afile e 'other-secret' f"
	if masked := MaskSecrets(text, got); masked != "a xxxxx b c xxxxx d xxxxx e 'xxxxx' f" {
		t.Errorf("MaskSecrets = %q", masked)
	}
	if sq, _ := Parse("x.db"); len(sq.Secrets(func(string) string { return "pw" })) != 0 {
		t.Error("a SQLite file uses no driver secrets")
	}
}

// FuzzParse: any value parses or is refused without a panic; an
// accepted PostgreSQL value names every password the driver would use
// (pgx's own parser is the oracle) and never prints one.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"postgres://u:pw@h/db?sslpassword=k", "postgresql://u@h,h2:5/db?password=p&x=1", "host=h password='a\\'b' user=u",
		"host=h Password=p", "postgres:/h/db", "mysql://h", "x.db", "dbname = 'd b' password=p\\ q", "postgres://u@h/db?password=%41%42",
		"postgres://h/db?pass%77ord=zz", "host=h sslpassword=s options='-c x=1'",
		"postgresql://", "postgres:///db?host=/tmp", "hots=h dbname=x", "postgres://u@h/db?sslmod=disable",
	} {
		f.Add(s)
	}
	f.Setenv("PGPASSWORD", "")
	f.Setenv("PGPASSFILE", "/nonexistent/pgpass")
	f.Setenv("PGSERVICEFILE", "/nonexistent/pgservice")
	f.Setenv("PGSYSCONFDIR", "/nonexistent")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := Parse(s)
		cfg, perr := pgx.ParseConfig(s)
		pw := ""
		if perr == nil {
			pw = cfg.Password
		}
		if err != nil {
			if len(pw) >= 8 && strings.Contains(err.Error(), pw) {
				t.Fatalf("refusal %q quotes the password %q", err, pw)
			}
			return
		}
		if !st.IsPostgres() {
			if st.Path != s {
				t.Fatalf("SQLite path %q, want %q", st.Path, s)
			}
			return
		}
		checkSecrets(t, st, pw, cfg, perr)
	})
}

func checkSecrets(t *testing.T, st Storage, pw string, cfg *pgx.ConnConfig, perr error) {
	secrets := st.Secrets(func(string) string { return "" })
	if pw != "" && !slices.Contains(secrets, pw) {
		t.Fatalf("%q: the driver's password %q is not among the secrets %q", st.DSN, pw, secrets)
	}
	if perr == nil {
		for k := range cfg.RuntimeParams {
			if slices.ContainsFunc(secretKeys, func(s string) bool { return strings.EqualFold(s, k) }) {
				t.Fatalf("%q: the secret key %q would be sent to the server", st.DSN, k)
			}
		}
	}
	shown := asciiLower(st.String())
	for _, s := range secrets {
		if s != "" && !strings.Contains(Mask, asciiLower(s)) && strings.Contains(shown, asciiLower(s)) {
			t.Fatalf("%q prints as %q, which holds the secret %q", st.DSN, st.String(), s)
		}
	}
}
