package prior

import (
	"context"
	"errors"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// stubStage proposes cfg (nil: passes) with origin, or fails with err,
// and records the turns it was asked on.
type stubStage struct {
	cfg    space.Config
	origin string
	err    error
	asked  []proposalTurn
}

func (s *stubStage) proposal(_ context.Context, t proposalTurn) (space.Config, string, error) {
	s.asked = append(s.asked, t)
	return s.cfg, s.origin, s.err
}

// Ask tries the stages in order: the first that proposes wins and its
// origin is recorded (Explain), with the prior's prediction; the stages
// after it are not asked; every stage sees the batch's busy configs; and
// a stage's error is Ask's.
func TestAskTriesTheStagesInOrder(t *testing.T) {
	sp := priorSpace()
	p := priorFunc(func(c space.Config) ([]float64, bool) { return []float64{truth(c)}, true })
	pass := &stubStage{}
	win := &stubStage{cfg: space.Config{"a": int64(2), "b": int64(3)}, origin: "revisit"}
	after := &stubStage{cfg: space.Config{"a": int64(1), "b": int64(1)}, origin: "sampler"}
	st := newState(sp, p, rand.New(rand.NewSource(1)))
	ps := &sampler{st: st, machine: machineFollower{st: st}, turns: turnTaker{st: st}, local: &localSearch{st: st},
		propose: []proposer{pass, win, after}}
	pending := []space.Config{{"a": int64(6), "b": int64(6)}}
	got, err := ps.Ask(context.Background(), 1, pending)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || search.ConfigKey(sp, got[0]) != search.ConfigKey(sp, win.cfg) {
		t.Fatalf("Ask = %v, want the second stage's %v", got, win.cfg)
	}
	if len(after.asked) != 0 {
		t.Errorf("a stage after the winner was asked %d times", len(after.asked))
	}
	if len(pass.asked) != 1 || !pass.asked[0].keys[search.ConfigKey(sp, pending[0])] || !pass.asked[0].prior {
		t.Errorf("the first stage was asked %+v, want once, on the prior's warm-start turn, with the pending config busy", pass.asked)
	}
	ex, ok := ps.Explain(win.cfg)
	if !ok || ex.Origin != "revisit" || !ex.Feasible || len(ex.Predicted) != 1 || ex.Predicted[0] != 5 {
		t.Errorf("Explain = %+v, %v; want origin revisit, predicted [5]", ex, ok)
	}
	boom := errors.New("boom")
	ps.propose = []proposer{pass, &stubStage{err: boom}, after}
	if _, err := ps.Ask(context.Background(), 1, nil); !errors.Is(err, boom) {
		t.Errorf("a stage's error: Ask = %v, want %v", err, boom)
	}
}
