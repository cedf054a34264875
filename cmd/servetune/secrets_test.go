package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/servetune/servetune/studies/pgtest"
	"github.com/servetune/servetune/studies/store/pgurl"
)

// The storage secrets of every form — a URL's user:password@, its
// password= and sslpassword= parameters, a key=value DSN's password,
// $PGPASSWORD, a passfile's contents — reach no output: stdout and
// stderr of every command at debug level in text and JSON, the reports,
// every file in the study directories, the SQLite file's bytes and a
// pg_dump of the PostgreSQL database. Written in the space file, they
// are refused (exit 2, nothing written).
func TestStorageSecretsReachNoOutput(t *testing.T) {
	url := pgtest.Start(t) // trust authentication: any password connects
	host, port, db := pgParts(t, url)
	dir := t.TempDir()
	pgpass := filepath.Join(dir, "pgpass")
	if err := os.WriteFile(pgpass, []byte("*:*:*:*:Pass-From-File-66\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secrets := []string{"Userinfo-Secret-11", "Query-Secret-22", "Ssl-Secret-33", "Dsn-Secret-44", "Env-Secret-55", "Pass-From-File-66"}
	withSecrets := "postgres://postgres:" + secrets[0] + "@" + host + ":" + port + "/" + db + "?sslmode=disable&password=" + secrets[1] + "&sslpassword=" + secrets[2]
	dsn := "host=" + host + " port=" + port + " user=postgres dbname=" + db + " sslmode=disable passfile=" + pgpass + " password='" + secrets[3] + "'"
	t.Setenv("PGPASSWORD", secrets[4])
	t.Setenv(storageEnv, "")
	abs := quickstartWithoutPrior(t)
	var outputs []string
	cli := func(want int, args ...string) {
		t.Helper()
		code, out, errText := runCLI(t, dir, args...)
		if code != want {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, want, errText)
		}
		outputs = append(outputs, out, errText)
	}
	cli(0, "--log-level", "debug", "worker", "--storage", withSecrets, "--workers", "2", "--n-trials", "3", abs)
	t.Setenv(storageEnv, dsn)
	cli(0, "--log-level", "debug", "--log-format", "json", "run", "--n-trials", "4", abs)
	for _, args := range [][]string{{"show", "--json"}, {"show"}, {"best", "--json"}, {"report", "--html", filepath.Join(dir, "r.html")}, {"report", "--markdown", filepath.Join(dir, "md")}} {
		cli(0, append(append([]string{"--log-level", "debug"}, args...), "quickstart")...)
	}
	cli(0, "--log-level", "debug", "studies")
	t.Setenv(storageEnv, "")
	cli(1, "--log-level", "debug", "show", "--storage", "postgres://postgres:"+secrets[0]+"@127.0.0.1:1/x?password="+secrets[1], "quickstart")
	cli(2, "show", "--storage", "host=h PASSWORD="+secrets[1], "quickstart")
	cli(0, "--log-level", "debug", "run", "--n-trials", "2", abs) // a study.db, with $PGPASSWORD set
	refusedInFile(t, abs, withSecrets)
	outputs = append(outputs, filesUnder(t, dir)...)
	outputs = append(outputs, pgDump(t, host, port, db))
	for i, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(strings.ToLower(out), strings.ToLower(s)) {
				t.Errorf("output %d holds the secret %s:\n%.2000s", i, s, out)
			}
		}
	}
	if !bytes.Contains([]byte(strings.Join(outputs, "")), []byte("xxxxx")) {
		t.Error("no output shows a masked secret: the test did not print the storage at all")
	}
}

// refusedInFile: the secret-bearing URL in [study] storage is refused
// with file, line and key, and nothing is written.
func refusedInFile(t *testing.T, space, storage string) {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(space)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "secret.toml")
	text := strings.Replace(string(src), "[study]\n", "[study]\nstorage = \""+storage+"\"\n", 1)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI(t, dir, "run", file)
	if code != 2 || !regexp.MustCompile(regexp.QuoteMeta(file)+`:\d+: study.storage: carries a secret`).MatchString(errText) {
		t.Errorf("storage with a password in the file: exit %d\n%s", code, errText)
	}
	if strings.Contains(out+errText, "-Secret-") {
		t.Errorf("the refusal prints the secret:\n%s%s", out, errText)
	}
	if _, err := os.Stat(filepath.Join(dir, "studies")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused space wrote %s/studies (%v)", dir, err)
	}
}

// filesUnder reads every file under dir: study.db bytes, trial
// directories, engine logs, reports, lock files.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "pgpass" {
			return err
		}
		b, err := os.ReadFile(p)
		out = append(out, p+"\n"+string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 3 {
		t.Fatalf("only %d files under %s: the commands wrote nothing to search", len(out), dir)
	}
	return out
}

// pgDump is the whole database, schema and data, as pg_dump writes it.
func pgDump(t *testing.T, host, port, db string) string {
	t.Helper()
	bin, err := exec.LookPath("pg_dump")
	if err != nil {
		t.Skipf("no pg_dump: %v", err)
	}
	cmd := exec.Command(bin, "-h", host, "-p", port, "-U", "postgres", "-d", db)
	cmd.Env = append(os.Environ(), "PGPASSWORD=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	if !strings.Contains(string(out), "servetune_quickstart") {
		t.Fatalf("pg_dump holds no study schema:\n%.500s", out)
	}
	return string(out)
}

func pgParts(t *testing.T, url string) (host, port, db string) {
	t.Helper()
	m := regexp.MustCompile(`^postgres://postgres@([^:]+):(\d+)/(\w+)\?`).FindStringSubmatch(url)
	if m == nil {
		t.Fatalf("unexpected pgtest URL %s", url)
	}
	if st, err := pgurl.Parse(url); err != nil || !st.IsPostgres() {
		t.Fatalf("the pgtest URL does not parse as PostgreSQL: %v", err)
	}
	return m[1], m[2], m[3]
}

// A storage value servetune parses but the driver cannot read (a bad
// sslmode, a bad port) is bad input, exit 2, naming where it came from —
// the flag, the variable or the space file — before anything is written.
func TestStorageTheDriverCannotReadIsBadInput(t *testing.T) {
	abs := quickstartWithoutPrior(t)
	src, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	inFile := filepath.Join(t.TempDir(), "bad.toml")
	text := strings.Replace(string(src), "[study]\n", "[study]\nstorage = \"postgres://u@h/db?sslmode=sometimes\"\n", 1)
	if err := os.WriteFile(inFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{args: []string{"worker", "--storage", "postgres://u:Pw-Secret-77@h:notaport/db", abs}, want: "--storage: storage postgres://u:xxxxx@h:notaport/db: the driver cannot read it"},
		{env: "host=h sslmode=sometimes password=Pw-Secret-77", args: []string{"show", "quickstart"}, want: "$" + storageEnv + ": "},
		{args: []string{"run", inFile}, want: inFile + ": study.storage: "},
	} {
		t.Setenv(storageEnv, c.env)
		dir := t.TempDir()
		code, out, errText := runCLI(t, dir, c.args...)
		if code != 2 || !strings.Contains(errText, c.want) || strings.Contains(out+errText, "Pw-Secret-77") {
			t.Errorf("%v: exit %d\n%s\nwant exit 2 with %q and no secret", c.args, code, errText, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "studies")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v wrote %s/studies", c.args, dir)
		}
	}
}

// TestURLFlagSecretsReachNoOutput: every flag that takes a URL —
// run/worker/show --storage, $SERVETUNE_STORAGE, run/worker/export
// --optuna, bench --base-url — keeps the secrets a URL may carry
// (user:password@, ?password=, ?sslpassword=) out of stdout, stderr and
// every file, at debug level, whether it refuses the URL or fails to
// connect with it; and a refused or unreachable --optuna writes no study.
func TestURLFlagSecretsReachNoOutput(t *testing.T) {
	space := quickstartWithoutPrior(t)
	secrets := []string{"Userinfo-Secret-11", "Query-Secret-22", "Ssl-Secret-33"}
	pg := "postgres://postgres:" + secrets[0] + "@127.0.0.1:1/x?password=" + secrets[1] + "&sslpassword=" + secrets[2]
	unreachable := "postgresql://tuner@127.0.0.1:1/optuna?connect_timeout=2"
	cases := []struct {
		env  string
		args []string
		code int
	}{
		{args: []string{"run", "--store-outage", "1s", "--storage", pg, space}, code: 1},
		{args: []string{"worker", "--store-outage", "1s", "--storage", pg, space}, code: 1},
		{args: []string{"show", "--storage", pg, "quickstart"}, code: 1},
		{env: pg, args: []string{"show", "quickstart"}, code: 1},
		{args: []string{"run", "--optuna", "postgresql://tuner:" + secrets[0] + "@127.0.0.1:1/optuna", space}, code: 2},
		{args: []string{"run", "--optuna", "postgresql://tuner@127.0.0.1:1/optuna?password=" + secrets[1], space}, code: 2},
		{args: []string{"run", "--optuna", "postgresql://tuner@127.0.0.1:1/optuna?sslpassword=" + secrets[2], space}, code: 2},
		{args: []string{"run", "--optuna", "postgresql://tuner@127.0.0.1:1/optuna?Password=" + secrets[1], space}, code: 2},
		{args: []string{"run", "--optuna", unreachable, space}, code: 1},
		{args: []string{"worker", "--storage", "postgres://u@127.0.0.1:1/x", "--optuna", "postgresql://tuner@127.0.0.1:1/optuna?password=" + secrets[1], space}, code: 2},
		{args: []string{"export", "--optuna", "postgresql://tuner@127.0.0.1:1/optuna?password=" + secrets[1], "quickstart"}, code: 2},
		{args: []string{"export", "--optuna", "postgresql://tuner@127.0.0.1:1/optuna?sslpassword=" + secrets[2], "quickstart"}, code: 2},
		{args: []string{"bench", "--base-url", "http://u:" + secrets[0] + "@127.0.0.1:1", "--model", "m"}, code: 2},
		{args: []string{"bench", "--base-url", "http://127.0.0.1:1/?key=" + secrets[1], "--model", "m"}, code: 2},
	}
	for _, c := range cases {
		t.Setenv(storageEnv, c.env)
		dir := t.TempDir()
		code, out, errText := runCLI(t, dir, append([]string{"--log-level", "debug"}, c.args...)...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, code, c.code, errText)
		}
		for _, s := range secrets {
			if strings.Contains(strings.ToLower(out+errText), strings.ToLower(s)) {
				t.Errorf("%v: the output holds the secret %s:\n%s%s", c.args, s, out, errText)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: wrote %v", c.args, entries)
		}
	}
}
