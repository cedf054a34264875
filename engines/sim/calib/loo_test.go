package calib

import (
	"context"
	"testing"
)

// Leave-one-out on noiseless synthetic data whose truth the factors can
// reach: every held-out trial is predicted far better than before the
// fit; with two trials, the fold whose one trial sees both factors is
// refused and predicts on the unfitted cards.
func TestLeaveOneOut(t *testing.T) {
	p := problem(t, 8, truthWith(t, 0.75, 1.4))
	trialOf := make([]int, 8)
	for i := range trialOf {
		trialOf[i] = i
	}
	errs, refused, err := LeaveOneOut(context.Background(), p, trialOf)
	if err != nil {
		t.Fatal(err)
	}
	before, err := Fit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if refused != 0 || errs[0].N != 8 || errs[0].Max > 0.02 || before.Before[0].Median < 0.1 {
		t.Errorf("LOO %+v (refused %d); before %+v", errs, refused, before.Before)
	}
	small := problem(t, 2, truthWith(t, 0.75, 1.4))
	errs, refused, err = LeaveOneOut(context.Background(), small, []int{0, 1})
	if err != nil || refused != 1 || errs[0].N != 2 || errs[0].Max < 0.1 {
		t.Errorf("two trials: %+v refused %d %v", errs, refused, err)
	}
	if _, _, err := LeaveOneOut(context.Background(), p, []int{0}); err == nil {
		t.Error("a short trialOf was accepted")
	}
}
