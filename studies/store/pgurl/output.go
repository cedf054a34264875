package pgurl

import (
	"io"
	"strings"
)

// OutputSecrets are the storage secrets an invocation with args may
// hold: those of the storage in the environment variable env
// ($SERVETUNE_STORAGE) and of any --storage argument, and those the
// PostgreSQL driver reads from the environment. Everything servetune
// prints passes through Masked with them, so a secret stays out of
// logs, errors and results even where a message quotes a connection
// string servetune did not build (a driver's, a server's).
func OutputSecrets(args []string, getenv func(string) string, env string) []string {
	values := []string{getenv(env)}
	for i, a := range args {
		flag, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-") || flag != "storage":
		case hasValue:
			values = append(values, v)
		case i+1 < len(args):
			values = append(values, args[i+1])
		}
	}
	secrets := DriverSecrets(getenv)
	for _, v := range values {
		if st, err := Parse(v); err == nil {
			secrets = append(secrets, st.Secrets(getenv)...)
		}
	}
	return secrets
}

// maskWriter masks secrets in every write. Each log line, error and
// result is written whole, so a secret is never split across writes.
type maskWriter struct {
	w       io.Writer
	secrets []string
}

// Masked wraps w when there is anything to mask.
func Masked(w io.Writer, secrets []string) io.Writer {
	if len(secrets) == 0 {
		return w
	}
	return maskWriter{w: w, secrets: secrets}
}

func (m maskWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(m.w, MaskSecrets(string(p), m.secrets)); err != nil {
		return 0, err
	}
	return len(p), nil
}
