package pgurl

import (
	"slices"
	"strings"
	"unicode"

	"github.com/servetune/servetune/internal/suggest"
)

// connKeys are libpq's connection keywords (and pgx's own); any other
// key of a DSN is a server setting (pgx passes it on at startup).
var connKeys = []string{
	"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth",
	"channel_binding", "connect_timeout", "client_encoding", "options", "application_name",
	"fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
	"keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "requiressl",
	"sslcompression", "sslcert", "sslkey", "sslkeylogfile", "sslpassword", "sslcertmode", "sslrootcert",
	"sslcrl", "sslcrldir", "sslsni", "sslnegotiation", "requirepeer", "ssl_min_protocol_version",
	"ssl_max_protocol_version", "min_protocol_version", "max_protocol_version", "krbsrvname",
	"gsslib", "gssdelegation", "service", "servicefile", "target_session_attrs", "load_balance_hosts",
	"oauth_issuer", "oauth_client_id", "oauth_client_secret", "oauth_scope",
	"database", "ssl", "statement_cache_capacity", "description_cache_capacity", "default_query_exec_mode", "min_read_buffer_size",
}

// secretKeys hold secrets: passwords, the client key's passphrase, an
// OAuth client secret. passfile is a path (only its contents are secret).
var secretKeys = []string{"password", "sslpassword", "oauth_client_secret"}

// param checks one connection key and records its value if secret. A
// key that differs from a known one only in case is refused (libpq
// refuses it; pgx would send it to the server as a setting), and its
// value is a secret all the same if the key folds to one.
func (st *Storage) param(key, val string) (secret bool, err error) {
	for _, k := range secretKeys {
		if strings.EqualFold(key, k) {
			st.addSecret(k, val)
			secret = true
		}
	}
	for _, k := range connKeys {
		if strings.EqualFold(key, k) && key != k {
			return secret, errorf("connection key %q is written in the wrong case: did you mean %q?", safeKey(key), k)
		}
	}
	if !slices.Contains(connKeys, key) {
		// pgx would send an unknown key to the server as a setting, so a
		// misspelt sslmode or dbname would silently not apply.
		return secret, errorf("unknown connection key %q%s (a server setting goes in options=-c%%20NAME%%3DVALUE)",
			safeKey(key), suggest.Hint(key, connKeys))
	}
	switch key {
	case "passfile":
		st.passfile = val
	case "host", "hostaddr", "service":
		st.hasHost = st.hasHost || val != ""
	}
	return secret, nil
}

// noHost refuses a connection that names no server: libpq would fall
// back on a local socket or $PGHOST, and a value that meant a server
// would quietly reach another one, or none.
func noHost() error {
	return errorf("names no host: write postgres://user@HOST/db, or host=HOST (a socket directory is a host: host=/var/run/postgresql)")
}

func (st *Storage) addSecret(key, val string) {
	if !slices.Contains(st.secretKeys, key) {
		st.secretKeys = append(st.secretKeys, key)
	}
	if val != "" && !slices.Contains(st.secrets, val) {
		st.secrets = append(st.secrets, val)
	}
}

// safeKey is a key fit to quote in an error: keys are names, but a
// malformed value can make a secret look like one.
func safeKey(k string) string {
	if len(k) > 40 || strings.IndexFunc(k, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) >= 0 {
		return "(malformed)"
	}
	return k
}

// isKeyValueDSN says whether s is a libpq key=value connection string:
// it begins with a known connection key (any case) and an '='.
func isKeyValueDSN(s string) bool {
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	i := strings.IndexAny(t, "= \t\n\r\f\v")
	if i <= 0 {
		return false
	}
	key := t[:i]
	if !strings.HasPrefix(strings.TrimLeft(t[i:], " \t\n\r\f\v"), "=") {
		return false
	}
	return slices.ContainsFunc(connKeys, func(k string) bool { return strings.EqualFold(k, key) })
}

// parseKeyValueDSN reads a key=value connection string the way libpq
// does: values bare or single-quoted, with backslash escapes.
func parseKeyValueDSN(s string) (Storage, error) {
	st := Storage{DSN: s}
	var shown []string
	for rest := s; ; {
		rest = strings.TrimLeft(rest, " \t\n\r\f\v")
		if rest == "" {
			break
		}
		key, val, tail, err := dsnPair(rest)
		if err != nil {
			return Storage{}, err
		}
		secret, err := st.param(key, val)
		if err != nil {
			return Storage{}, err
		}
		if secret {
			val = Mask
		}
		shown = append(shown, key+"="+quoteDSN(val))
		rest = tail
	}
	if !st.hasHost {
		return Storage{}, noHost()
	}
	st.shown = strings.Join(shown, " ")
	return st, nil
}

// dsnPair reads one key=value from the front of s.
func dsnPair(s string) (key, val, rest string, err error) {
	i := strings.IndexAny(s, "= \t\n\r\f\v")
	if i < 0 {
		i = len(s)
	}
	if i == 0 {
		return "", "", "", errorf("is a malformed key=value connection string (an = without a key)")
	}
	key, rest = s[:i], strings.TrimLeft(s[i:], " \t\n\r\f\v")
	if !strings.HasPrefix(rest, "=") {
		return "", "", "", errorf("is a malformed key=value connection string (key %q has no =)", safeKey(key))
	}
	rest = strings.TrimLeft(rest[1:], " \t\n\r\f\v")
	val, rest, ok := dsnValue(rest)
	if !ok {
		return "", "", "", errorf("is a malformed key=value connection string (the value of %q has an unterminated quote)", safeKey(key))
	}
	return key, val, rest, nil
}

// dsnValue reads a bare or single-quoted value with backslash escapes.
func dsnValue(s string) (val, rest string, ok bool) {
	quoted := strings.HasPrefix(s, "'")
	if quoted {
		s = s[1:]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 == len(s): // escapes the end: dropped, as libpq does
			return b.String(), "", !quoted
		case c == '\\':
			i++
			b.WriteByte(s[i])
		case quoted && c == '\'':
			return b.String(), s[i+1:], true
		case !quoted && strings.IndexByte(" \t\n\r\f\v", c) >= 0:
			return b.String(), s[i:], true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), "", !quoted
}

// quoteDSN writes a value back in key=value syntax.
func quoteDSN(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r\f\v'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
