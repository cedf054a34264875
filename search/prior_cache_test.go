package search

import (
	"bufio"
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/servetune/servetune/space"
)

// countingScreener screens and predicts y = a + b and counts its calls;
// after cancelAfter screenings (0: never) it cancels the run, as a signal
// would mid-screening.
type countingScreener struct {
	screens, full atomic.Int64
	cancelAfter   int64
	cancel        context.CancelFunc
	seen          sync.Map // screened configs' keys
}

func (p *countingScreener) Predict(_ context.Context, c space.Config) ([]float64, bool) {
	p.full.Add(1)
	return []float64{truth(c)}, true
}

func (p *countingScreener) Screen(_ context.Context, c space.Config) ([]float64, bool) {
	p.seen.Store(c.Key(), true)
	if n := p.screens.Add(1); p.cancelAfter > 0 && n == p.cancelAfter {
		p.cancel()
	}
	return []float64{truth(c)}, true
}

// bigSpace has 40,000 configs: more than the start-up screens.
func bigSpace() *space.Space {
	sp := priorSpace()
	sp.Params = []space.Param{{Name: "a", Kind: space.Int, Low: 1, High: 200}, {Name: "b", Kind: space.Int, Low: 1, High: 200}}
	return sp
}

// A cancelled run stops the start-up screening between configs: at most
// the configs already running finish, and WithPrior says why it stopped.
func TestPriorScreeningStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &countingScreener{cancelAfter: 20, cancel: cancel}
	_, err := WithPrior(ctx, innerRandom(t, bigSpace()), bigSpace(), p, 1)
	if err != context.Canceled {
		t.Fatalf("WithPrior = %v, want context.Canceled", err)
	}
	if n := p.screens.Load(); n > 20+int64(maxProcs()) {
		t.Errorf("%d screenings after a cancel at the 20th, want at most the %d running then", n, maxProcs())
	}
	if n := p.full.Load(); n != 0 {
		t.Errorf("%d full predictions after the cancel, want none", n)
	}
}

// A prior kept in a file is not asked again for what it predicted: a
// second start-up of the same study screens nothing anew, and one whose
// first start-up was cancelled keeps what it had screened.
func TestCachedPriorIsNotAskedAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prior.jsonl")
	sp := bigSpace()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	killed := &countingScreener{cancelAfter: 100, cancel: cancel}
	startUp(t, ctx, killed, sp, path, "k")
	if got := cacheLines(t, path); got < 90 || got > 100+int64(maxProcs()) {
		t.Fatalf("%d predictions kept after a cancel at the 100th, want those made", got)
	}
	first := &countingScreener{}
	startUp(t, context.Background(), first, sp, path, "k")
	again := 0
	killed.seen.Range(func(k, _ any) bool {
		if _, ok := first.seen.Load(k); ok {
			again++
		}
		return true
	})
	if again > int(maxProcs()) { // those cut short by the cancel
		t.Errorf("the resumed start-up screened %d configs the cancelled one had screened", again)
	}
	same := &countingScreener{}
	startUp(t, context.Background(), same, sp, path, "k")
	if n, f := same.screens.Load(), same.full.Load(); n != 0 || f != 0 {
		t.Errorf("a start-up with nothing changed screened %d and predicted %d configs, want 0 and 0", n, f)
	}
	other := &countingScreener{}
	startUp(t, context.Background(), other, sp, path, "another space")
	if n := other.screens.Load(); n < screenStart {
		t.Errorf("a start-up under another key screened %d configs, want all %d (the file is not theirs)", n, screenStart)
	}
}

func startUp(t *testing.T, ctx context.Context, p Prior, sp *space.Space, path, key string) {
	t.Helper()
	cp, closer, err := CachePrior(p, sp, path, key)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	_, err = WithPrior(ctx, innerRandom(t, sp), sp, cp, 1)
	if err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
}

func innerRandom(t *testing.T, sp *space.Space) Sampler {
	t.Helper()
	s, err := newRandom(Build{Space: sp, Rand: rand.New(rand.NewSource(1))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func maxProcs() int { return runtime.GOMAXPROCS(0) }

// cacheLines counts the predictions in the file (its header aside).
func cacheLines(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := int64(-1)
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
	}
	return n
}
