package pgurl

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/servetune/servetune/internal/suggest"
)

// Storage is where a study's trials live, parsed once from [study]
// storage, --storage or $SERVETUNE_STORAGE: a SQLite file, or a
// PostgreSQL server named by a postgres:// URL or a libpq key=value
// connection string. It is the one owner of that syntax: every other
// package (space's check of [study] storage included, through
// SecretKeysOf) asks it whether a value is PostgreSQL, how to print it
// and which secrets it holds.
type Storage struct {
	// Path is the SQLite file ("" for PostgreSQL or the default file).
	Path string
	// DSN is the PostgreSQL connection string exactly as given, secrets
	// included; hand it to the driver, never to a printer (use String).
	DSN string
	// shown is the value with every secret masked.
	shown string
	// secrets are the secret values the DSN holds, and secretKeys the
	// keys that hold them ("user:password@" for a URL's userinfo).
	secrets, secretKeys []string
	// passfile is the DSN's passfile path (its contents are secret).
	passfile string
	// hasHost says the value names a server (a URL's host, host=,
	// hostaddr= or service=).
	hasHost bool
}

// Mask replaces a secret wherever Storage prints.
const Mask = "xxxxx"

// Error says why a storage value is refused. Its text never
// quotes the value's secrets.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, a ...any) error {
	return &Error{Msg: fmt.Sprintf(format, a...)}
}

// Parse reads a storage value ("" is the default SQLite file).
func Parse(s string) (Storage, error) {
	switch {
	case s == "":
		return Storage{}, nil
	case strings.TrimSpace(s) == "":
		return Storage{}, errorf("is blank: give a SQLite file path or postgres://user@host/db")
	case isKeyValueDSN(s):
		return parseKeyValueDSN(s)
	}
	if err := misspeltDSN(s); err != nil {
		return Storage{}, err
	}
	if scheme, ok := urlScheme(s); ok {
		return parseStorageURL(s, scheme)
	}
	return parseSQLitePath(s)
}

// IsPostgres says whether the storage is a PostgreSQL server.
func (s Storage) IsPostgres() bool { return s.DSN != "" }

// String is the storage fit for logs, errors and reports: every secret
// masked.
func (s Storage) String() string {
	if s.IsPostgres() {
		// A secret may also stand where nothing is masked (a user named
		// like the password): mask it there too.
		return MaskSecrets(s.shown, s.secrets)
	}
	return s.Path
}

// SecretKeys names the secrets the value itself carries.
func (s Storage) SecretKeys() []string { return s.secretKeys }

// schemeRE is a URL scheme and its colon.
var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*):`)

// urlScheme finds a value that is, or was meant to be, a URL: anything
// with "scheme://", and postgres:, postgresql:, sqlite: or file: with
// fewer slashes (postgres:/host/db would otherwise be a SQLite
// directory "postgres:").
func urlScheme(s string) (string, bool) {
	m := schemeRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	scheme := strings.ToLower(m[1])
	if strings.HasPrefix(s[len(m[0]):], "//") {
		return scheme, true
	}
	switch scheme {
	case "postgres", "postgresql", "sqlite", "file":
		return scheme, true
	}
	return "", false
}

func parseSQLitePath(s string) (Storage, error) {
	switch {
	case strings.ContainsAny(s, "?#"):
		return Storage{}, errorf("a SQLite file path cannot contain ? or #")
	case strings.HasSuffix(s, "/"):
		return Storage{}, errorf("names a directory; give the study's file, e.g. %sstudy.db", s)
	}
	if fi, err := os.Stat(s); err == nil && fi.IsDir() {
		return Storage{}, errorf("%s is a directory; give the study's file, e.g. %s/study.db", s, strings.TrimSuffix(s, "/"))
	} else if err == nil && !fi.Mode().IsRegular() {
		// /dev/null, a pipe: SQLite fails on it only once the study is
		// opened ("disk I/O error", exit 1).
		return Storage{}, errorf("%s is not a regular file (%s); give the study's file, e.g. study.db", s, fi.Mode().Type())
	}
	return Storage{Path: s}, nil
}

// IsShared says whether a storage value names shared storage
// (PostgreSQL) rather than a SQLite file; a value that does not parse
// is not shared.
func IsShared(storage string) bool {
	st, err := Parse(storage)
	return err == nil && st.IsPostgres()
}

// SecretKeysOf names the secrets a storage value itself carries (a
// space file may name the server but hold none), or why it is refused.
func SecretKeysOf(storage string) ([]string, error) {
	st, err := Parse(storage)
	return st.SecretKeys(), err
}

// Redact is a storage value fit for printing, parsed or not.
func Redact(storage string) string {
	st, err := Parse(storage)
	if err != nil {
		return "(unreadable storage value)"
	}
	return st.String()
}

// dsnStartRE is the start of a key=value connection string.
var dsnStartRE = regexp.MustCompile(`^\s*([A-Za-z_]+)\s*=`)

// misspeltDSN refuses a key=value connection string whose first key is
// not a connection key (isKeyValueDSN needs one): "hots=h dbname=x"
// would otherwise be a SQLite file of that name. A path is taken as a
// misspelt string when its first key is near a connection key or more
// follows it after a space.
func misspeltDSN(s string) error {
	m := dsnStartRE.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	hint := suggest.Hint(m[1], connKeys)
	if hint == "" && !strings.ContainsAny(strings.TrimSpace(s), " \t") {
		return nil
	}
	return errorf("unknown connection key %q%s: a key=value connection string begins with one of libpq's keys (host=…)", safeKey(m[1]), hint)
}
