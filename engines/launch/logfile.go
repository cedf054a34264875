package launch

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// defaultLogLimit caps engine.log. Engines print a line per request at
// info level; an hour of that must not fill the disk, and the failure that
// matters is at the end.
const defaultLogLimit = 32 << 20

// cappedLog is an append-only file that, past its limit, drops its older
// half and keeps the tail, marking the cut.
type cappedLog struct {
	mu    sync.Mutex
	f     *os.File
	size  int64
	limit int64
}

func openCappedLog(path string, limit int64) (*cappedLog, error) {
	if limit <= 0 {
		limit = defaultLogLimit
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("engine log: %w", err)
	}
	return &cappedLog{f: f, limit: limit}, nil
}

func (l *cappedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size+int64(len(p)) > l.limit {
		if err := l.compact(int64(len(p))); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// compact keeps the last half of the limit (minus room for the incoming
// write), starting at a line boundary.
func (l *cappedLog) compact(incoming int64) error {
	keep := max(l.limit/2-incoming, 0)
	tail := make([]byte, min(keep, l.size))
	if _, err := l.f.ReadAt(tail, l.size-int64(len(tail))); err != nil && err != io.EOF {
		return err
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	dropped := l.size - int64(len(tail))
	marker := fmt.Sprintf("[servetune: %d earlier bytes dropped to keep the log under %d bytes]\n", dropped, l.limit)
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := l.f.Write(append([]byte(marker), tail...))
	l.size = int64(n)
	return err
}

// Tail returns up to n last lines.
func (l *cappedLog) Tail(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return tailLines(l.f, l.size, n)
}

func (l *cappedLog) Close() error { return l.f.Close() }

// tailLines reads the last n lines of the first size bytes of r, looking at
// most 256 KiB back: enough for any traceback an engine prints on death.
func tailLines(r io.ReaderAt, size int64, n int) []string {
	const window = 256 << 10
	buf := make([]byte, min(size, window))
	if _, err := r.ReadAt(buf, size-int64(len(buf))); err != nil && err != io.EOF {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	if len(buf) == window && len(lines) > 1 {
		lines = lines[1:] // the first may be cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
