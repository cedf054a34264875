package studies

import (
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// LivenessOf reads the lock file a live run holds (its trial is running)
// and the empty one it leaves when it ends cleanly.
func TestLivenessOfReadsTheStudyLock(t *testing.T) {
	d := dirNamed(t.TempDir(), "s")
	now := time.Now()
	lock, err := d.Lock(Me(now), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	running := []Trial{{State: Running}}
	if MarkHolderGone(running, now, d.LivenessOf()); running[0].State != Running {
		t.Errorf("with this live process holding the lock: %q, want running", running[0].Reason)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	if MarkHolderGone(running, now, d.LivenessOf()); running[0].State != Interrupted {
		t.Error("with the lock released, the trial's holder is still taken to be alive")
	}
}
