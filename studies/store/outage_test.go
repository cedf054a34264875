package store

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rs/zerolog"
)

func TestUnreachableTellsOutagesFromRefusals(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("study x: record trial 3: %w", io.ErrUnexpectedEOF), true},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "42P01", Message: "relation does not exist"}, false},
		{ErrFull, false},
		{ErrLeaseLost, false},
		{errors.New("some other error"), false},
		{nil, false},
	} {
		if got := Unreachable(c.err); got != c.want {
			t.Errorf("Unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// An outage is ridden out until its bound, with backoff between
// attempts; reclaiming waits one lease after the store is back; an
// error the store answered with stops at once.
func TestOutageRidesOutUntilItsBound(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	log := zerolog.Nop()
	down := fmt.Errorf("claim: %w", io.ErrUnexpectedEOF)
	o := Outage{Bound: 10 * time.Minute}
	if err := o.Failed(errors.New("syntax error"), t0, log); err == nil || o.Down() {
		t.Fatal("a refused query is ridden out as an outage")
	}
	var waits []time.Duration
	for i := range 6 {
		if err := o.Failed(down, t0.Add(time.Duration(i)*time.Minute), log); err != nil {
			t.Fatalf("at %d min: %v, want the outage ridden out", i, err)
		}
		waits = append(waits, o.RetryIn())
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 15 * time.Second, 15 * time.Second}; fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("backoff %v, want %v", waits, want)
	}
	if o.MayReclaim(t0.Add(6*time.Minute), time.Minute) {
		t.Error("reclaims leases while the store is down")
	}
	o.Answered(t0.Add(7*time.Minute), log)
	if o.Down() || o.MayReclaim(t0.Add(7*time.Minute+59*time.Second), time.Minute) || !o.MayReclaim(t0.Add(8*time.Minute), time.Minute) {
		t.Error("after the store is back, reclaiming must wait exactly one lease")
	}
	if err := o.Failed(down, t0.Add(20*time.Minute), log); err != nil {
		t.Fatalf("a new outage: %v", err)
	}
	if o.RetryIn() != time.Second {
		t.Error("a new outage does not start its backoff over")
	}
	if err := o.Failed(down, t0.Add(30*time.Minute), log); err != nil {
		t.Errorf("at the bound exactly: %v, want still ridden out", err)
	}
	err := o.Failed(down, t0.Add(30*time.Minute+time.Second), log)
	if !errors.Is(err, ErrStoreOutage) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("past the bound: %v, want ErrStoreOutage wrapping the cause", err)
	}
}

func TestRenewInBacksOffAfterAFailure(t *testing.T) {
	every := 20 * time.Second
	var got []time.Duration
	wait, ok := every, true
	for _, renewed := range []bool{true, false, false, false, false, false, false, true, false} {
		wait, ok = renewIn(renewed, ok, wait, every), renewed
		got = append(got, wait)
	}
	want := []time.Duration{every, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, every, every, time.Second}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("renewal waits %v, want %v", got, want)
	}
	if renewIn(false, true, 0, 300*time.Millisecond) != 300*time.Millisecond {
		t.Error("a short lease's retry exceeds its heartbeat interval")
	}
}
