package optunadb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/servetune/servetune/studies/store"
)

// OpenMirror writes the study's trials so far and mirrors those that
// finish after; a store it cannot read opens nothing.
func TestOpenMirror(t *testing.T) {
	ctx := context.Background()
	sp, trials := fixtureSpaceParsed(t), fixtureTrials()
	target, _ := ParseURL("sqlite:///" + filepath.Join(t.TempDir(), "o.db"))
	read := func(context.Context) ([]store.Trial, error) { return trials[:3], nil }
	m, w, n, err := OpenMirror(ctx, target, sp, read)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n != 3 || count(t, w.db.sql, `SELECT count(*) FROM trials`) != 3 {
		t.Fatalf("wrote %d trials", n)
	}
	if err := m.TrialFinished(ctx, trials[3]); err != nil {
		t.Fatal(err)
	}
	if got := count(t, w.db.sql, `SELECT count(*) FROM trials`); got != 4 {
		t.Errorf("%d trials after one finished, want 4", got)
	}
	broken := errors.New("store unreachable")
	if _, _, _, err := OpenMirror(ctx, target, sp, func(context.Context) ([]store.Trial, error) { return nil, broken }); !errors.Is(err, broken) {
		t.Errorf("unreadable store: %v", err)
	}
}
