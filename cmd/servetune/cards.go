package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

func cardsFlag() cli.Flag {
	return &cli.StringFlag{Name: "cards", Usage: "TOML `FILE` of simulator cards (servetune card output) over the built-in ones, for the simulator and the prior (overrides [target.sim] cards)"}
}

// targetCards are the cards the target simulates on: the text a study
// stored, else [target.sim] cards over the built-in ones. A bad file is
// bad input (exit 2) naming file:line:key.
func targetCards(t space.Target) (*sim.Cards, error) {
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
			return nil, usageError{err}
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

// cardsWith is how a space load finds a target's cards; override is
// --cards.
func cardsWith(override string) studies.CardsOf {
	return func(t space.Target) (*sim.Cards, error) {
		if override != "" {
			t.Sim.Cards = override
		}
		return targetCards(t)
	}
}

// checkCardsFlag loads --cards before the space, so its errors name the
// cards file rather than the space's key.
func checkCardsFlag(path string) error {
	if path == "" {
		return nil
	}
	if _, err := sim.LoadCards(path); err != nil {
		return usagef("--cards: %v", err)
	}
	return nil
}

// errCardsChanged: a study resumed with other cards than it ran with.
var errCardsChanged = errors.New("the simulator cards differ from those the study ran with")

// studyCards settles the cards a run or worker simulates on and records
// them with the study: the first run stores the file's text; a resume
// with no cards uses the stored ones; a resume whose cards changed is
// drift (refused, or a warning with [study] on_drift = "warn").
func (e *env) studyCards(ctx context.Context, sp *space.Space, store *store.Store) (*sim.Cards, error) {
	stored, err := store.Cards(ctx)
	if err != nil {
		return nil, err
	}
	cards, err := e.studyCardsLoad(ctx, sp, store, stored)
	if err == nil {
		e.noteReplaced(sp.Target.Sim.Cards, cards)
	}
	return cards, err
}

// noteReplaced tells the user which cards a cards file replaced under
// another name (an alias of a built-in card, say).
func (e *env) noteReplaced(file string, cards *sim.Cards) {
	for _, n := range cards.Replaced {
		e.log.Info().Str("cards", file).Msg(n)
	}
}

func (e *env) studyCardsLoad(ctx context.Context, sp *space.Space, store *store.Store, stored string) (*sim.Cards, error) {
	t := &sp.Target.Sim
	if t.Cards == "" {
		if stored != "" {
			e.log.Info().Str("study", sp.Study.Name).Msg("simulating on the cards stored with the study")
			t.CardsSource = stored
		}
		return targetCards(sp.Target)
	}
	src, err := sim.ReadCardFile(t.Cards)
	if err != nil {
		return nil, usageError{fmt.Errorf("cards: %w", err)}
	}
	t.CardsSource = string(src)
	cards, err := targetCards(sp.Target)
	if err != nil {
		return nil, err
	}
	if stored != "" {
		if err := e.cardsDrift(sp, stored, cards); err != nil {
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
func (e *env) cardsDrift(sp *space.Space, stored string, now *sim.Cards) error {
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
		e.log.Warn().Str("study", sp.Study.Name).Str("cards", sp.Target.Sim.Cards).Msg("simulator cards changed since the study's trials ran (on_drift = \"warn\"); simulating on the new ones")
		return nil
	}
	return usageError{fmt.Errorf("study %s: %w (%s): its trials would not be comparable. Restore the cards, start a new study (another name or --fresh), or set [study] on_drift = \"warn\"",
		sp.Study.Name, errCardsChanged, sp.Target.Sim.Cards)}
}

// withStoredCards loads a space whose model or GPU only its study's
// stored cards know — a resume after the cards file was dropped from
// [target.sim] — on those cards, as studyCards would simulate on them
// once the study is open; the study is read where run or worker would
// open it (studies.StoredCards decides). Any other failure, a new study
// or a space that still names a cards file keeps loadErr; a study whose
// store cannot be read says so with it.
func (e *env) withStoredCards(c *cli.Context, opt space.Options, loadErr error) (*space.Space, error) {
	bare := opt
	bare.CheckTarget = nil
	sp, err := space.Load(c.Context, c.Args().First(), bare)
	if err != nil {
		return nil, loadErr
	}
	url, err := storageURL(c.String("storage"), sp)
	if err != nil {
		return nil, loadErr
	}
	at := studies.StoredCardsAt{Storage: url, Dir: studydir.For(c.String("dir"), sp), StoreOutage: c.Duration("store-outage"), StoreConnect: storeConnect(c), Log: e.log}
	stored, err := studies.StoredCards(c.Context, sp, at)
	if err != nil {
		return nil, fmt.Errorf("%v\n(the cards stored with study %q, which a resume runs on, could not be read: %w)", loadErr, sp.Study.Name, err)
	}
	if stored == "" {
		return nil, loadErr
	}
	if sp, err = loadOnCards(c, opt, stored); err != nil {
		return nil, loadErr
	}
	return sp, nil
}

// loadOnCards loads the space with the target checked on stored cards.
func loadOnCards(c *cli.Context, opt space.Options, stored string) (*space.Space, error) {
	withCards := studies.SpaceOptions(func(t space.Target) (*sim.Cards, error) {
		t.Sim.CardsSource = stored
		return targetCards(t)
	}, c.StringSlice("engines")...)
	withCards.NodesGiven = opt.NodesGiven
	sp, err := loadSpaceWith(c.Context, c.Args().First(), withCards)
	if err != nil {
		return nil, err
	}
	sp.Target.Sim.CardsSource = stored
	return sp, nil
}
