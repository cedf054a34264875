package studydir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/studies/store"
)

func TestSecondLockRefusedNamingTheHolder(t *testing.T) {
	d := Of(t.TempDir(), "s")
	me := store.Holder{PID: 4242, Host: "node-7", Started: time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC), Command: "servetune run a.toml"}
	first, err := d.Lock(me, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Lock(store.Holder{PID: 1}, zerolog.Nop())
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v, want a LockedError", err)
	}
	if le.Holder.PID != 4242 || le.Holder.Host != "node-7" || !strings.Contains(err.Error(), "pid 4242 on node-7") {
		t.Errorf("error does not name the holder: %v", err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := d.Lock(store.Holder{PID: 7}, zerolog.Nop())
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again.Release()
}

// A holder killed with -9 leaves its lock file filled in but no flock:
// the next run takes over and says so.
func TestLockOfDeadHolderIsTakenOverWithWarning(t *testing.T) {
	d := Of(t.TempDir(), "s")
	if err := os.MkdirAll(d.Path(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path(), "lock"), []byte(`{"pid":999999,"host":"gone","started":"2026-11-30T23:00:00Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	l, err := d.Lock(store.Holder{PID: 5, Host: "here"}, zerolog.New(&logs))
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	defer l.Release()
	if !strings.Contains(logs.String(), "taking over") || !strings.Contains(logs.String(), "999999") {
		t.Errorf("no warning naming the dead holder: %s", logs.String())
	}
	b, _ := os.ReadFile(filepath.Join(d.Path(), "lock"))
	if !strings.Contains(string(b), `"pid":5`) {
		t.Errorf("lock file does not name the new holder: %s", b)
	}
}
