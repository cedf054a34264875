package studydir

import (
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/studies/store"
)

// LivenessOf reads the lock file a live run holds (its trial is running)
// and the empty one it leaves when it ends cleanly.
func TestLivenessOfReadsTheStudyLock(t *testing.T) {
	d := dirNamed(t.TempDir(), "s")
	now := time.Now()
	lock, err := d.Lock(store.Me(now), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	running := []store.Trial{{State: store.Running}}
	if store.MarkHolderGone(running, now, d.LivenessOf()); running[0].State != store.Running {
		t.Errorf("with this live process holding the lock: %q, want running", running[0].Reason)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	if store.MarkHolderGone(running, now, d.LivenessOf()); running[0].State != store.Interrupted {
		t.Error("with the lock released, the trial's holder is still taken to be alive")
	}
}
