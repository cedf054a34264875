package pgurl

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A password file that never ends (PGPASSFILE=/dev/zero, a pipe) is
// read up to a bound for its secrets, so nothing waits on it; the whole
// read of old never returned.
func TestSecretsOfAnEndlessPassfileReturn(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pgpass")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no fifo: %v", err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		line := bytes.Repeat([]byte("h:5432:db:u:pw\n"), 4096)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}()
	st, err := Parse("host=h dbname=db")
	if err != nil {
		t.Fatal(err)
	}
	// Old code never returned here; the test binary's timeout ends it.
	got := st.Secrets(func(k string) string { return map[string]string{"PGPASSFILE": fifo}[k] })
	if len(got) == 0 || got[0] != "pw" {
		t.Errorf("Secrets = %q, want the file's password", got[:min(len(got), 3)])
	}
}
