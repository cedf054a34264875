package pgurl

import (
	"cmp"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Secrets are every secret a connection to s may use: the value's own,
// and for PostgreSQL those the driver reads for it — $PGPASSWORD and the
// passwords in its password file (passfile, $PGPASSFILE or ~/.pgpass).
// Whatever prints while s is in use masks them all (MaskSecrets).
func (s Storage) Secrets(getenv func(string) string) []string {
	out := slices.Clone(s.secrets)
	if !s.IsPostgres() {
		return out
	}
	return append(out, driverSecrets(s.passfile, getenv)...)
}

// DriverSecrets are the secrets the PostgreSQL driver reads from the
// environment for any connection: $PGPASSWORD and the passwords in
// $PGPASSFILE or ~/.pgpass.
func DriverSecrets(getenv func(string) string) []string {
	return driverSecrets("", getenv)
}

func driverSecrets(passfile string, getenv func(string) string) []string {
	var out []string
	if pw := getenv("PGPASSWORD"); pw != "" {
		out = append(out, pw)
	}
	return append(out, passfileSecrets(passfileName(passfile, getenv))...)
}

func passfileName(passfile string, getenv func(string) string) string {
	switch {
	case passfile != "":
		return passfile
	case getenv("PGPASSFILE") != "":
		return getenv("PGPASSFILE")
	case getenv("HOME") != "":
		return filepath.Join(getenv("HOME"), ".pgpass")
	}
	return ""
}

// maxPassfile bounds what is read of a password file for its secrets.
const maxPassfile = 1 << 20

// passfileSecrets are the password fields of a .pgpass file
// (host:port:db:user:password, with \: and \\ escapes).
func passfileSecrets(name string) []string {
	if name == "" {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	// Bounded: PGPASSFILE=/dev/zero would otherwise be read without end
	// before anything printed. A password file is a few lines.
	b, err := io.ReadAll(io.LimitReader(f, maxPassfile))
	if err != nil {
		return nil
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if f := pgpassFields(line); len(f) >= 5 && f[4] != "" {
			out = append(out, f[4])
		}
	}
	return out
}

func pgpassFields(line string) []string {
	var fields []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			i++
			b.WriteByte(line[i])
		case c == ':' && len(fields) < 4:
			fields = append(fields, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(fields, b.String())
}

// MaskSecrets replaces every secret in text, in any (ASCII) letter
// case and in the escaped forms a URL or a connection string gives it.
func MaskSecrets(text string, secrets []string) string {
	forms := secretForms(secrets)
	if len(forms) == 0 || text == "" {
		return text
	}
	lower := asciiLower(text)
	var b strings.Builder
	for i := 0; i < len(text); {
		if n := matchAt(lower[i:], forms); n > 0 {
			b.WriteString(Mask)
			i += n
			continue
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String()
}

// matchAt is the length of the form s begins with (0 for none); forms
// are longest first, so a secret containing another is masked whole.
func matchAt(s string, forms []string) int {
	for _, f := range forms {
		if strings.HasPrefix(s, f) {
			return len(f)
		}
	}
	return 0
}

// secretForms are the secrets as printed raw, %-escaped or quoted, in
// lower case, longest first.
func secretForms(secrets []string) []string {
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range []string{s, url.QueryEscape(s), url.PathEscape(s), url.UserPassword("", s).String()[1:], quoteDSN(s)} {
			if f = asciiLower(f); !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	slices.SortFunc(forms, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return forms
}

// asciiLower folds ASCII letters only, so offsets stay byte for byte.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
