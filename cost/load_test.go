package cost

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A price file whose size stat cannot tell (a pipe, a device such as
// /dev/zero: 0 bytes) is read only up to the bound; the stat-then-read
// of old read /dev/zero without end.
func TestLoadBoundsWhatStatCannotSize(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "prices.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no fifo: %v", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		// Two bounds' worth of blank lines: valid TOML, so only the bound
		// can refuse it. The reader stops early; the write then fails.
		_, _ = w.Write(bytes.Repeat([]byte("\n"), 2*maxFileBytes))
	}()
	if _, err := Load(fifo); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a pipe of %d bytes: %v, want refused past the bound", 2*maxFileBytes, err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}
