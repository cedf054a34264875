package studies

import (
	"context"
	"testing"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// A quality profile's replies are stored with the trial and read back in
// prompt order: the baseline's are the reference of later trials'
// baseline_agreement, also after a resume.
func TestRepliesAreStoredWithTheTrial(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	base := store.Trial{Origin: "baseline", Config: space.Config{"x": int64(1)}, Start: time.Now()}
	other := store.Trial{Origin: "sampler", Config: space.Config{"x": int64(2)}, Start: time.Now()}
	for _, tr := range []*store.Trial{&base, &other} {
		if err := begin(ctx, st, tr); err != nil {
			t.Fatal(err)
		}
		tr.State = store.Complete
	}
	base.Replies = map[string][]string{"qa": {" 4", "", "Paris\n"}}
	for _, tr := range []*store.Trial{&base, &other} {
		if err := st.Finish(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := baselineReplies(got)["qa"]; len(r) != 3 || r[0] != " 4" || r[1] != "" || r[2] != "Paris\n" {
		t.Errorf("baseline replies read back as %q", r)
	}
	if got[1].Replies != nil {
		t.Errorf("a trial without quality profiles has replies %v", got[1].Replies)
	}
	got[0].State = store.Running
	if baselineReplies(got) != nil {
		t.Error("an unfinished baseline's replies are no reference")
	}
}
