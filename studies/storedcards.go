package studies

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// StoredCardsAt is where StoredCards looks for the study a space
// declares.
type StoredCardsAt struct {
	// Storage is the study's shared storage (postgres://…); "" means
	// the study.db in Dir.
	Storage string
	Dir     studydir.Dir
	// StoreOutage bounds the wait for shared storage that does not
	// answer (default store.DefaultStoreOutage), as OpenShared waits.
	StoreOutage time.Duration
	// StoreConnect bounds the wait for storage never reached since the
	// start (0: StoreOutage), as OpenShared's.
	StoreConnect time.Duration
	Log          zerolog.Logger
}

// StoredCards reads, writing nothing, the text of the simulator cards
// stored with the study sp declares: what a resume whose space no longer
// names its cards file runs on (a model or GPU only those cards know).
// It is "" with no error when the study cannot supply them — the space
// names a cards file (those are its cards; a changed file is drift, not
// a resume), no such study exists yet, or it stored none — so that a new
// study without cards is refused as before. Shared storage that does not
// answer is waited for up to StoreOutage; an error it answers with, or
// the outage past the bound, is returned (masked of secrets by the
// store).
func StoredCards(ctx context.Context, sp *space.Space, at StoredCardsAt) (string, error) {
	switch storedCardsSource(sp, at) {
	case cardsInSpace:
		return "", nil
	case cardsInDir:
		if !at.Dir.Exists() {
			return "", nil
		}
		return storedCardsRead(readCards(ctx, at.Dir.OpenReadOnly))
	}
	var text string
	o := &store.Outage{Bound: cmp.Or(max(at.StoreOutage, 0), store.DefaultStoreOutage), Connect: max(at.StoreConnect, 0), Where: store.Address(at.Storage)}
	err := store.RideOut(ctx, o, at.Log, func(ctx context.Context) (err error) {
		text, err = readCards(ctx, func(ctx context.Context) (*store.Store, error) {
			return store.OpenPostgres(ctx, at.Storage, sp.Study.Name, store.ReadOnly)
		})
		return err
	})
	return storedCardsRead(text, err)
}

// cardsSource is where a space's stored cards are looked for.
type cardsSource int

const (
	cardsInSpace  cardsSource = iota // the space names its cards file
	cardsInDir                       // the study.db in the study's directory
	cardsInShared                    // the study's schema in shared storage
)

// storedCardsSource decides where to look: nowhere when the space names
// a cards file, else where a run or worker would open the study —
// shared storage when there is one, the study's directory otherwise.
func storedCardsSource(sp *space.Space, at StoredCardsAt) cardsSource {
	switch {
	case sp.Target.Sim.Cards != "":
		return cardsInSpace
	case store.IsPostgres(at.Storage):
		return cardsInShared
	}
	return cardsInDir
}

// readCards opens a study read-only and reads its stored cards.
func readCards(ctx context.Context, open func(context.Context) (*store.Store, error)) (string, error) {
	st, err := open(ctx)
	if err != nil {
		return "", err
	}
	text, err := st.Cards(ctx)
	return text, errors.Join(err, st.Close())
}

// storedCardsRead is what a read of a study's cards means for a resume:
// a study that does not exist (no file, no schema in the database) is a
// new study, with no stored cards, not a failure.
func storedCardsRead(text string, err error) (string, error) {
	switch {
	case errors.Is(err, store.ErrNotStudy), errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", err
	}
	return text, nil
}
