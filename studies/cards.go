package studies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// InputError marks bad input found while settling a study's cards (a
// cards file that does not load, cards that changed since the study
// ran): cmd makes it exit 2, as a bad space file.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// TargetCards are the cards the target simulates on: the text a study
// stored, else [target.sim] cards over the built-in ones. A bad file is
// bad input (exit 2) naming file:line:key.
func TargetCards(t space.Target) (*sim.Cards, error) {
	switch {
	case t.Sim.CardsSource != "":
		c := sim.DefaultCards()
		if err := c.AddFile(cardsName(t), []byte(t.Sim.CardsSource)); err != nil {
			return nil, fmt.Errorf("the cards stored with the study no longer load: %w", err)
		}
		return c, nil
	case t.Sim.Cards != "":
		c, err := sim.LoadCards(t.Sim.Cards)
		if err != nil {
			return nil, InputError{err}
		}
		return c, nil
	}
	return sim.DefaultCards(), nil
}

func cardsName(t space.Target) string {
	if t.Sim.Cards != "" {
		return t.Sim.Cards
	}
	return "stored cards"
}

// CardsWith is how a space load finds a target's cards; override is
// --cards.
func CardsWith(override string) CardsOf {
	return func(t space.Target) (*sim.Cards, error) {
		if override != "" {
			t.Sim.Cards = override
		}
		return TargetCards(t)
	}
}

// ErrCardsChanged: a study resumed with other cards than it ran with.
var ErrCardsChanged = errors.New("the simulator cards differ from those the study ran with")

// StudyCards settles the cards a run or worker simulates on and records
// them with the study: the first run stores the file's text; a resume
// with no cards uses the stored ones; a resume whose cards changed is
// drift (refused, or a warning with [study] on_drift = "warn").
func StudyCards(ctx context.Context, sp *space.Space, store *store.Store, log zerolog.Logger) (*sim.Cards, error) {
	stored, err := store.Cards(ctx)
	if err != nil {
		return nil, err
	}
	cards, err := studyCardsLoad(ctx, sp, store, stored, log)
	if err == nil {
		NoteReplaced(log, sp.Target.Sim.Cards, cards)
	}
	return cards, err
}

// NoteReplaced tells the user which cards a cards file replaced under
// another name (an alias of a built-in card, say).
func NoteReplaced(log zerolog.Logger, file string, cards *sim.Cards) {
	for _, n := range cards.Replaced {
		log.Info().Str("cards", file).Msg(n)
	}
}

func studyCardsLoad(ctx context.Context, sp *space.Space, store *store.Store, stored string, log zerolog.Logger) (*sim.Cards, error) {
	t := &sp.Target.Sim
	if t.Cards == "" {
		if stored != "" {
			log.Info().Str("study", sp.Study.Name).Msg("simulating on the cards stored with the study")
			t.CardsSource = stored
		}
		return TargetCards(sp.Target)
	}
	src, err := sim.ReadCardFile(t.Cards)
	if err != nil {
		return nil, InputError{fmt.Errorf("cards: %w", err)}
	}
	t.CardsSource = string(src)
	cards, err := TargetCards(sp.Target)
	if err != nil {
		return nil, err
	}
	if stored != "" {
		if err := cardsDrift(sp, stored, cards, log); err != nil {
			return nil, err
		}
		if stored == t.CardsSource {
			return cards, nil
		}
	}
	return cards, store.SetCards(ctx, t.Cards, t.CardsSource)
}

// cardsDrift compares the parsed cards (comments and layout may change
// freely) with those stored.
func cardsDrift(sp *space.Space, stored string, now *sim.Cards, log zerolog.Logger) error {
	was := sim.DefaultCards()
	if err := was.AddFile("stored cards", []byte(stored)); err != nil {
		return fmt.Errorf("study %s: the cards stored with it no longer load: %w", sp.Study.Name, err)
	}
	a, _ := json.Marshal(was)
	b, _ := json.Marshal(now)
	switch {
	case string(a) == string(b):
		return nil
	case sp.Study.OnDrift == "warn":
		log.Warn().Str("study", sp.Study.Name).Str("cards", sp.Target.Sim.Cards).Msg("simulator cards changed since the study's trials ran (on_drift = \"warn\"); simulating on the new ones")
		return nil
	}
	return InputError{fmt.Errorf("study %s: %w (%s): its trials would not be comparable. Restore the cards, start a new study (another name or --fresh), or set [study] on_drift = \"warn\"",
		sp.Study.Name, ErrCardsChanged, sp.Target.Sim.Cards)}
}
