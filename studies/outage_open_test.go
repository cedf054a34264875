package studies

import (
	"context"
	"testing"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/pgtest"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// A store that goes down in the seconds after a worker connected (its
// first reads: engines, cards, trials) is ridden out like one down
// before: OpenShared runs its Check inside the same wait, reconnects
// once PostgreSQL is back and checks again.
func TestOpenSharedRidesOutAnOutageDuringItsFirstReads(t *testing.T) {
	pg := pgtest.StartCluster(t)
	sp := studySpace(t, 3, "")
	ctx := context.Background()
	calls := 0
	var first error
	o := sessionOptions(t, "x", false, 1)
	o.StoreOutage = time.Minute
	// The stored space is this one (the test's source is a stand-in).
	o.Parse = func(context.Context, string, string) (*space.Space, error) { return sp, nil }
	o.Check = func(ctx context.Context, st *store.Store) error {
		calls++
		if calls == 1 {
			if err := pg.Stop(); err != nil {
				t.Fatal(err)
			}
			_, first = st.Trials(ctx)
			if err := pg.Restart(); err != nil {
				t.Fatal(err)
			}
			return first
		}
		_, err := st.Trials(ctx)
		return err
	}
	s, err := OpenShared(ctx, pg.URL, studydir.Of(t.TempDir(), "unit"), sp, o)
	if err != nil {
		t.Fatalf("the worker gave up on a store that came back: %v (its first read failed with %v)", err, first)
	}
	defer s.Close()
	if first == nil || !store.Unreachable(first) {
		t.Fatalf("the first read did not meet the outage (error %v)", first)
	}
	if calls != 2 {
		t.Fatalf("Check ran %d times, want 2 (once more after the store came back)", calls)
	}
}
