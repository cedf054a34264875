package studies

import (
	"context"
	"math"
	"time"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/studies/store"
)

// begin lays a trial's row out by hand, as the tests of a resume or a
// reader need it: claimed without a lease, checked only against
// duplicates (n_trials is no limit here).
func begin(ctx context.Context, st *store.Store, t *store.Trial) error {
	return st.ClaimNext(ctx, t, time.Time{}, store.Caps{Trials: math.MaxInt32, Measurements: search.MaxMeasurements})
}
