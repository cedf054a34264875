package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/servetune/servetune/space"
)

// A --repeat study measures a config exactly repeat times however the
// claims race: the claim that would make it repeat+1 is refused, as a
// second claim of the same new config always was.
func TestClaimHonoursRepeat(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	cfg := space.Config{"max_running": int64(64)}
	claim := func(origin string, repeat int) error {
		tr := Trial{Config: cfg, Origin: origin, Start: now, Worker: "w/0"}
		return st.ClaimNext(ctx, &tr, now.Add(time.Minute), Caps{Trials: 100, Repeat: repeat, Measurements: measurements})
	}
	if err := claim("sampler", 3); err != nil {
		t.Fatalf("first measurement: %v", err)
	}
	if err := claim("sampler", 3); !errors.Is(err, ErrTaken) {
		t.Errorf("the same config proposed again: %v, want ErrTaken", err)
	}
	for i := 2; i <= 3; i++ {
		if err := claim("repeat", 3); err != nil {
			t.Fatalf("measurement %d of 3: %v", i, err)
		}
	}
	if err := claim("repeat", 3); !errors.Is(err, ErrTaken) {
		t.Errorf("a fourth measurement with --repeat 3: %v, want ErrTaken", err)
	}
}

// The store counts a config's measurements as the study loop does: a
// pruned or failed trial of it is not one. A confirmation of a config
// pruned once and completed twice is allowed (it is its third
// measurement); counting the pruned trial refused it while the loop kept
// asking for it, and a study spun in its fill loop forever.
func TestClaimCountsMeasurementsAsTheLoopDoes(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	cfg := space.Config{"max_running": int64(64)}
	run := func(origin string, end State) error {
		tr := Trial{Config: cfg, Origin: origin, Start: now, Worker: "w/0"}
		if err := st.ClaimNext(ctx, &tr, now.Add(time.Minute), Caps{Trials: 100, Repeat: 1, Measurements: measurements}); err != nil {
			return err
		}
		tr.State = end
		return st.Finish(ctx, &tr)
	}
	for _, step := range []struct {
		origin string
		end    State
	}{{"sampler", Pruned}, {"revisit", Complete}, {"confirm", Failed}, {"confirm", Complete}} {
		if err := run(step.origin, step.end); err != nil {
			t.Fatalf("%s trial: %v", step.origin, err)
		}
	}
	if err := run("confirm", Complete); err != nil {
		t.Fatalf("third completed measurement: %v", err)
	}
	if err := run("confirm", Complete); !errors.Is(err, ErrTaken) {
		t.Errorf("a fourth completed measurement: %v, want ErrTaken", err)
	}
}

// The cap on measuring a config again is the caller's, not a constant of
// the store: a confirmation is refused exactly when the config has
// caps.Measurements completed or running measurements, whatever the cap.
func TestClaimTakesTheMeasurementCapFromTheCaller(t *testing.T) {
	for _, limit := range []int{2, 5} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			ctx := context.Background()
			st, _ := openStore(t)
			now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			caps := Caps{Trials: 100, Repeat: 1, Measurements: limit}
			claimed := 0
			for origin := "sampler"; ; origin = "confirm" {
				tr := Trial{Config: space.Config{"max_running": int64(64)}, Origin: origin, Start: now, Worker: "w/0"}
				err := st.ClaimNext(ctx, &tr, now.Add(time.Minute), caps)
				if errors.Is(err, ErrTaken) {
					break
				}
				if err != nil || claimed > limit {
					t.Fatalf("measurement %d under a cap of %d: %v", claimed+1, limit, err)
				}
				claimed++
			}
			if claimed != limit {
				t.Errorf("claimed %d measurements of one config under a cap of %d", claimed, limit)
			}
		})
	}
}
