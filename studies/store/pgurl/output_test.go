package pgurl

import (
	"bytes"
	"strings"
	"testing"
)

// The secrets of the environment's storage, of --storage in either form
// and of $PGPASSWORD are masked in whatever is written; nothing else is.
func TestOutputSecretsAreMasked(t *testing.T) {
	env := map[string]string{"ST_STORAGE": "postgres://u:envpw@h/db", "PGPASSWORD": "pgpw", "HOME": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	for _, args := range [][]string{
		{"servetune", "run", "--storage", "postgres://u:flagpw@h/db", "x.toml"},
		{"servetune", "run", "--storage=postgres://u:flagpw@h/db", "x.toml"},
	} {
		secrets := OutputSecrets(args, getenv, "ST_STORAGE")
		var out bytes.Buffer
		w := Masked(&out, secrets)
		n, err := w.Write([]byte("envpw flagpw pgpw FLAGPW kept\n"))
		if err != nil || n != len("envpw flagpw pgpw FLAGPW kept\n") {
			t.Fatalf("write: %d, %v", n, err)
		}
		got := out.String()
		if strings.Contains(strings.ToLower(got), "pw") || !strings.Contains(got, "kept") {
			t.Errorf("%v: %q", args[2], got)
		}
	}
	var out bytes.Buffer
	if w := Masked(&out, nil); w != &out {
		t.Error("nothing to mask, yet the writer is wrapped")
	}
}
