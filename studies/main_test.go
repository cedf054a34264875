package studies

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// hangingWorkerEnv, set to a storage URL, makes the test binary a worker
// of the "unit" study whose trial never ends: the test kills it with -9
// once it says which trial it claimed.
const hangingWorkerEnv = "STUDIES_TEST_HANGING_WORKER"

func TestMain(m *testing.M) {
	if url := os.Getenv(hangingWorkerEnv); url != "" {
		hangingWorker(url)
	}
	os.Exit(m.Run())
}

// hangRunner announces its trial and never finishes it.
type hangRunner struct{}

func (hangRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	fmt.Printf("claimed %d\n", t.Number)
	<-ctx.Done()
	return objective.Result{}, ctx.Err()
}

func hangingWorker(url string) {
	ctx := context.Background()
	n, _ := strconv.Atoi(os.Getenv("STUDIES_TEST_N_TRIALS"))
	sp, err := space.Parse(ctx, "unit.toml", studySource(n, ""), testSpaceOptions())
	if err == nil {
		var st *store.Store
		if st, err = store.OpenPostgres(ctx, url, "unit", store.Create); err == nil {
			dir := studydir.Of(os.Getenv("STUDIES_TEST_DIR"), "unit")
			err = Run(ctx, RunOptions{Space: sp, Store: st, Runner: hangRunner{}, Dir: dir, Log: zerolog.Nop(), Shared: true, WorkerID: "doomed", Lease: 2 * time.Second})
		}
	}
	fmt.Fprintln(os.Stderr, "hanging worker ended:", err)
	os.Exit(1)
}
