package lab

import (
	"errors"
	"math"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A config whose every request failed reports no throughput and no
// latency. Read as zeros it would sit on the true front at 0 ms TPOT and
// add a strip no study can reach (a study fails the trial): on the
// h200-extreme reality 128 such configs cost every seed ~5% of the front.
func TestTruthIgnoresConfigsWithoutObjectiveMetrics(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	tps, tpot := sp.Objectives[0].Metric, sp.Objectives[1].Metric
	ok := func(a, b float64) *outcome { return &outcome{metrics: map[string]float64{tps: a, tpot: b}} }
	allFailed := &outcome{metrics: map[string]float64{"completed": 0, "failed": 1000}}
	grid := &Truth0{
		Configs:  make([]space.Config, 4),
		Outcomes: []*outcome{ok(1000, 50), ok(3000, 90), allFailed, {err: errors.New("out of memory")}},
	}
	truth, err := TruthOf(grid, sp)
	if err != nil {
		t.Fatal(err)
	}
	if truth.Points != 4 || truth.Feasible != 2 || truth.Optimum != 3000 {
		t.Errorf("points %d feasible %d optimum %g, want 4, 2, 3000", truth.Points, truth.Feasible, truth.Optimum)
	}
	front := [][]float64{{1000, 50}, {3000, 90}}
	ref := search.ReferencePoint(front, sp.Objectives)
	if want := search.Hypervolume(front, sp.Objectives, ref); math.Abs(truth.FrontHV-want) > 1e-9*want {
		t.Errorf("front hypervolume %g, want %g (reference %v, got %v)", truth.FrontHV, want, ref, truth.Ref)
	}
}
