package lab

import (
	"context"
	"math"
	"testing"

	"github.com/rs/zerolog"
)

// With Trace each run carries its trials: every counted trial once, in
// order, its true value the oracle's noiseless one, a measurement only
// where it completed (within the noise of the truth), and a prior value
// only in runs with the prior. Without Trace, none.
func TestEvaluateTracesEachRunsTrials(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	sp.Objectives = sp.Objectives[:1]
	o := NewOracle(sp)
	ctx := context.Background()
	opt := Options{Landscape: "qwen3", Samplers: []string{"random"}, Seeds: 1, Trials: 8, NoiseCV: 0.05, Dir: t.TempDir(), Log: zerolog.Nop(), Trace: true, Prune: true}
	pruned := 0
	for _, withPrior := range []bool{false, true} {
		opt.Prior = nil
		if withPrior {
			opt.Prior = o
		}
		res, err := Evaluate(ctx, o, &Truth{Optimum: 0.77}, sp, opt)
		if err != nil {
			t.Fatal(err)
		}
		run := res.Runs[0]
		if len(run.Trials) != len(run.Best) {
			t.Fatalf("prior %v: %d traced trials, %d counted", withPrior, len(run.Trials), len(run.Best))
		}
		for i, tt := range run.Trials {
			if i > 0 && tt.Number <= run.Trials[i-1].Number {
				t.Errorf("trial %d traced after %d", tt.Number, run.Trials[i-1].Number)
			}
			if tt.True == nil || *tt.True != trueValue(ctx, o, tt.Config, sp.Objectives[0]) {
				t.Errorf("trial %d: true value %v, want the oracle's", tt.Number, tt.True)
			}
			if (tt.Measured != nil) != (tt.State == "complete") {
				t.Errorf("trial %d (%s): measured %v", tt.Number, tt.State, tt.Measured)
			}
			if tt.Measured != nil && math.Abs(math.Log(*tt.Measured / *tt.True)) > 0.5 {
				t.Errorf("trial %d: measured %v far from its truth %v", tt.Number, *tt.Measured, *tt.True)
			}
			if (tt.Prior != nil) != withPrior {
				t.Errorf("trial %d: prior value %v in a run with prior = %v", tt.Number, tt.Prior, withPrior)
			}
			if tt.State == "pruned" {
				pruned++
			}
			if (tt.PrunedAt != 0) != (tt.State == "pruned") || (tt.PrunedAt != 0 && (tt.PrunedAt < 3 || tt.PrunedAt > 9 || tt.Why == "")) {
				t.Errorf("trial %d (%s): pruned at %d0%% (%q)", tt.Number, tt.State, tt.PrunedAt, tt.Why)
			}
		}
	}
	if pruned == 0 {
		t.Error("no trial was pruned: the test no longer shows where a pruned trial stopped")
	}
	opt.Trace, opt.Prior = false, nil
	res, err := Evaluate(ctx, o, &Truth{Optimum: 0.77}, sp, opt)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Runs[0].Trials); n != 0 {
		t.Errorf("without Trace: %d trials traced", n)
	}
}
