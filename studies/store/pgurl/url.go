package pgurl

import (
	"strings"
)

// parseStorageURL reads a postgres:// URL with the grammar of the
// driver's own parser (pgx, libpq's): the userinfo ends at the first @
// before any /, values are %-decoded strictly, with the spaces around
// them dropped. Its errors are fixed texts: a malformed value may be a
// password.
func parseStorageURL(s, scheme string) (Storage, error) {
	rest := s[len(scheme)+1:]
	switch {
	case scheme != "postgres" && scheme != "postgresql":
		return Storage{}, errorf("unknown storage scheme %q: give a SQLite file path or postgres://user@host/db", scheme+":")
	case !strings.HasPrefix(rest, "//"):
		return Storage{}, errorf("needs two slashes after %q: write %s://user@host/db", scheme+":", scheme)
	case strings.IndexByte(s, 0) >= 0:
		return Storage{}, errorf("holds a NUL byte")
	}
	st := Storage{DSN: scheme + ":" + rest} // the driver wants the scheme in lower case
	shown, p, err := st.userinfo(rest[2:])
	if err != nil {
		return Storage{}, err
	}
	shown = scheme + "://" + shown
	where, query, hasQuery := strings.Cut(p, "?")
	if _, err := uriDecode(where); err != nil {
		return Storage{}, errorf("has %s in its host, port or database", err)
	}
	shown += where
	if hasQuery {
		q, err := st.query(query)
		if err != nil {
			return Storage{}, err
		}
		shown += "?" + q
	}
	if host, _, _ := strings.Cut(where, "/"); strings.Trim(host, " ") != "" && !strings.HasPrefix(host, ":") {
		st.hasHost = true
	}
	if !st.hasHost {
		return Storage{}, noHost()
	}
	st.shown = shown
	return st, nil
}

// userinfo reads user[:password]@ from the front of p, when p has one.
func (st *Storage) userinfo(p string) (shown, rest string, err error) {
	i := strings.IndexAny(p, "@/")
	if i < 0 || p[i] != '@' {
		return "", p, nil
	}
	user, pw, hasPassword := strings.Cut(p[:i], ":")
	if _, err := uriDecode(user); err != nil {
		return "", "", errorf("has %s in its user name", err)
	}
	shown = user
	if hasPassword {
		val, err := uriDecode(pw)
		if err != nil {
			return "", "", errorf("has %s in its password", err)
		}
		st.addSecret("user:password@", val)
		shown += ":" + Mask
	}
	return shown + "@", p[i+1:], nil
}

// query checks a URL's parameters as connection keys and returns the
// query with its secrets masked.
func (st *Storage) query(raw string) (string, error) {
	parts := strings.Split(raw, "&")
	for i, part := range parts {
		k, v, ok := strings.Cut(part, "=")
		key, err := uriDecode(k)
		switch {
		case err != nil:
			return "", errorf("has %s in a query parameter's name", err)
		case !ok:
			return "", errorf("query parameter %q has no =", safeKey(key))
		case strings.Contains(v, "="):
			return "", errorf("query parameter %q has a second =; %%-encode it (%%3D)", safeKey(key))
		}
		val, err := uriDecode(v)
		if err != nil {
			return "", errorf("has %s in query parameter %q", err, safeKey(key))
		}
		secret, err := st.param(key, val)
		if err != nil {
			return "", err
		}
		if secret {
			parts[i] = k + "=" + Mask
		}
	}
	return strings.Join(parts, "&"), nil
}

// errURI is what is wrong with a URL component, never quoting it.
type errURI string

func (e errURI) Error() string { return string(e) }

// uriDecode decodes a URL component as the driver does: the spaces
// around it dropped, none inside it, every % followed by two hex
// digits, no %00.
func uriDecode(raw string) (string, error) {
	raw = strings.Trim(raw, " ")
	if strings.Contains(raw, " ") {
		return "", errURI("a space (write %20)")
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] != '%' {
			b.WriteByte(raw[i])
			continue
		}
		if i+2 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
			return "", errURI("an invalid %-escape")
		}
		c := unhex(raw[i+1])<<4 | unhex(raw[i+2])
		if c == 0 {
			return "", errURI("a %00")
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
