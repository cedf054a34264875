package studydir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/studies/store"
)

// LockedError says another servetune holds the study.
type LockedError struct {
	Path   string
	Holder store.Holder
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("study is in use by another servetune: %s (lock %s); wait for it to finish or stop it", e.Holder, e.Path)
}

// ErrLocked matches a LockedError with errors.Is.
var ErrLocked = errors.New("study is locked")

func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock is the exclusive right to write one study: run it, reap engines
// its earlier runs left, delete it with --fresh. It is an advisory lock
// (flock) on a file in the study directory, so the kernel releases it
// when its holder dies however it dies; the file's contents name the
// holder for the refusal message. A study shared by several workers
// replaces this whole-study lock with per-trial leases in its store.
type Lock struct {
	f    *os.File
	path string
}

// acquire takes the lock at path or fails at once with a *LockedError.
// A lock file still naming a holder that is gone (it was killed before
// it could clear the file) is taken over with a warning.
func acquire(path string, me store.Holder, log zerolog.Logger) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock study: %w", err)
	}
	if err := tryLock(f); err != nil {
		defer f.Close()
		if errors.Is(err, errWouldBlock) {
			h, _ := readHolder(f)
			return nil, &LockedError{Path: path, Holder: h}
		}
		return nil, fmt.Errorf("lock study %s: %w", path, err)
	}
	if prev, err := readHolder(f); err == nil && prev.PID != 0 {
		log.Warn().Str("lock", path).Stringer("holder", prev).Msg("taking over the lock of a servetune that is gone")
	}
	if err := writeHolder(f, me); err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("lock study %s: %w", path, err)
	}
	return &Lock{f: f, path: path}, nil
}

// Release clears the holder and gives the lock up.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Truncate(0)
	unlock(l.f)
	err = errors.Join(err, l.f.Close())
	l.f = nil
	return err
}

func readHolder(f *os.File) (store.Holder, error) {
	var h store.Holder
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return h, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return h, err
	}
	return h, json.Unmarshal(b, &h)
}

func writeHolder(f *os.File, h store.Holder) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(append(b, '\n'), 0); err != nil {
		return err
	}
	return f.Sync()
}
