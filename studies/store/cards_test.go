package store

import (
	"context"
	"testing"
)

func TestCardsAreRecordedWithTheStudy(t *testing.T) {
	ctx := context.Background()
	st, path := openStore(t)
	if got, err := st.Cards(ctx); err != nil || got != "" {
		t.Fatalf("cards of a new study = %q (%v), want none", got, err)
	}
	if err := st.SetCards(ctx, "my-cards.toml", "[gpus.H100]\nhbm_gb = 80\n"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro, err := Open(ctx, path, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	text, err := ro.Cards(ctx)
	file, ferr := ro.Meta(ctx, cardsFileKey)
	if err != nil || ferr != nil || text != "[gpus.H100]\nhbm_gb = 80\n" || file != "my-cards.toml" {
		t.Errorf("read back cards %q from %q (%v, %v)", text, file, err, ferr)
	}
}
