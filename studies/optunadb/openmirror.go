package optunadb

import (
	"context"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// OpenMirror opens the Optuna storage at t for the study sp, writes the
// study's trials so far (read with trials, which the mirror re-reads as
// the study goes on) and returns the mirror that writes each finished
// trial (run --optuna), the writer to close after the study, and how
// many trials it wrote.
func OpenMirror(ctx context.Context, t Target, sp *space.Space, trials func(context.Context) ([]store.Trial, error)) (*Mirror, *Writer, int, error) {
	ts, err := trials(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	w, err := Open(ctx, t, sp)
	if err != nil {
		return nil, nil, 0, err
	}
	m, err := NewMirror(ctx, w, ts, trials)
	if err != nil {
		w.Close()
		return nil, nil, 0, err
	}
	return m, w, len(ts), nil
}
