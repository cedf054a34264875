package studies

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/studies/pgtest"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

func TestStoredCardsSource(t *testing.T) {
	named := studySpace(t, 3, "")
	named.Target.Sim.Cards = "cards.toml"
	bare := studySpace(t, 3, "")
	cases := []struct {
		name    string
		named   bool
		storage string
		want    cardsSource
	}{
		{"the space names its cards", true, "", cardsInSpace},
		{"named cards win over shared storage", true, "postgres://u@h/db", cardsInSpace},
		{"a study.db", false, "", cardsInDir},
		{"shared storage", false, "postgres://u@h/db", cardsInShared},
		{"postgresql scheme", false, "postgresql://u@h/db", cardsInShared},
	}
	for _, c := range cases {
		sp := bare
		if c.named {
			sp = named
		}
		if got := storedCardsSource(sp, StoredCardsAt{Storage: c.storage}); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestStoredCardsRead(t *testing.T) {
	refused := errors.New("permission denied for schema")
	cases := []struct {
		name    string
		text    string
		err     error
		want    string
		wantErr error
	}{
		{"stored cards", "[[model]]\n", nil, "[[model]]\n", nil},
		{"a study that stored none", "", nil, "", nil},
		{"no schema: a new study", "", fmt.Errorf("open study x: %w", store.ErrNotStudy), "", nil},
		{"no file: a new study", "", fmt.Errorf("open study: %w", fs.ErrNotExist), "", nil},
		{"a refusal", "", refused, "", refused},
		{"an outage past the bound", "", store.ErrStoreOutage, "", store.ErrStoreOutage},
	}
	for _, c := range cases {
		got, err := storedCardsRead(c.text, c.err)
		if got != c.want || !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
			t.Errorf("%s: %q, %v; want %q, %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}

// A study.db's stored cards are read without writing; none where the
// study does not exist, stored none, or the space names its own.
func TestStoredCardsOfAStudyDB(t *testing.T) {
	ctx := context.Background()
	sp := studySpace(t, 3, "")
	root := t.TempDir()
	d := studydir.For(root, sp)
	if got, err := StoredCards(ctx, sp, StoredCardsAt{Dir: d}); got != "" || err != nil {
		t.Fatalf("no study yet: %q, %v", got, err)
	}
	st, err := store.Open(ctx, d.DB(), store.Create)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := StoredCards(ctx, sp, StoredCardsAt{Dir: d}); got != "" || err != nil {
		t.Errorf("a study that stored no cards: %q, %v", got, err)
	}
	if err := st.SetCards(ctx, "cards.toml", "# acme\n"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got, err := StoredCards(ctx, sp, StoredCardsAt{Dir: d}); got != "# acme\n" || err != nil {
		t.Errorf("stored cards: %q, %v", got, err)
	}
	named := *sp
	named.Target.Sim.Cards = "cards.toml"
	if got, err := StoredCards(ctx, &named, StoredCardsAt{Dir: d}); got != "" || err != nil {
		t.Errorf("a space naming its cards: %q, %v", got, err)
	}
}

// A study in PostgreSQL: its cards read from a read-only connection;
// none for a study the database does not hold; a store that does not
// answer is ridden out, then named without its password.
func TestStoredCardsInPostgres(t *testing.T) {
	url := pgtest.Start(t)
	ctx := context.Background()
	sp := studySpace(t, 3, "")
	at := StoredCardsAt{Storage: url, StoreOutage: time.Minute, Log: zerolog.Nop()}
	if got, err := StoredCards(ctx, sp, at); got != "" || err != nil {
		t.Fatalf("no study in the database: %q, %v", got, err)
	}
	st, err := store.OpenPostgres(ctx, url, sp.Study.Name, store.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetCards(ctx, "cards.toml", "# acme\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := StoredCards(ctx, sp, at); got != "# acme\n" || err != nil {
		t.Errorf("stored cards: %q, %v", got, err)
	}
	other := *sp
	other.Study.Name = "fresh"
	if got, err := StoredCards(ctx, &other, at); got != "" || err != nil {
		t.Errorf("another study's name: %q, %v", got, err)
	}
	if n, _ := st.Trials(ctx); len(n) != 0 {
		t.Errorf("reading the cards wrote %d trials", len(n))
	}
	down := StoredCardsAt{Storage: "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1", StoreOutage: time.Nanosecond, Log: zerolog.Nop()}
	_, err = StoredCards(ctx, sp, down)
	if !errors.Is(err, store.ErrStoreOutage) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("an unreachable store: %v; want the outage, without the password", err)
	}
}
