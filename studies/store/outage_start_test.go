package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
)

// RideOut (a worker starting while its store is down) retries an
// unreachable store with backoff until it answers or the bound passes,
// stops at once on an error the store answered with, and on a signal.
func TestRideOutWaitsForTheStoreUntilItsBound(t *testing.T) {
	down := fmt.Errorf("connect: %w", io.ErrUnexpectedEOF)
	refused := errors.New("permission denied for schema")
	cases := []struct {
		name     string
		failures int // attempts that find the store down before it answers
		answer   error
		bound    time.Duration
		want     error
		attempts int
		took     time.Duration
	}{
		{"back after four attempts", 4, nil, time.Minute, nil, 5, 1*time.Second + 2*time.Second + 4*time.Second + 8*time.Second},
		{"down past the bound", 1000, nil, 30 * time.Second, ErrStoreOutage, 7, 45 * time.Second}, // tries at 0, 1, 3, 7, 15, 30 (the bound: still ridden out), 45 s
		{"a refusal stops at once", 0, refused, time.Minute, refused, 1, 0},
		{"a refusal once the store is back", 2, refused, time.Minute, refused, 3, 3 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := 0
				start := time.Now()
				err := RideOut(context.Background(), &Outage{Bound: c.bound}, zerolog.Nop(), func(context.Context) error {
					n++
					if n <= c.failures {
						return down
					}
					return c.answer
				})
				if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
					t.Errorf("RideOut: %v, want %v", err, c.want)
				}
				if n != c.attempts || time.Since(start) != c.took {
					t.Errorf("%d attempts over %v, want %d over %v", n, time.Since(start), c.attempts, c.took)
				}
			})
		})
	}
	t.Run("a signal during the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(1500*time.Millisecond, cancel)
			start := time.Now()
			err := RideOut(ctx, &Outage{Bound: time.Hour}, zerolog.Nop(), func(context.Context) error { return down })
			if !errors.Is(err, context.Canceled) || time.Since(start) != 1500*time.Millisecond {
				t.Errorf("after %v: %v, want context.Canceled at the signal (1.5s)", time.Since(start), err)
			}
		})
	})
}
