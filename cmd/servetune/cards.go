package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/studydir"
)

func cardsFlag() cli.Flag {
	return &cli.StringFlag{Name: "cards", Usage: "TOML `FILE` of simulator cards (servetune card output) over the built-in ones, for the simulator and the prior (overrides [target.sim] cards)"}
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
		return studies.TargetCards(t)
	}, c.StringSlice("engines")...)
	withCards.NodesGiven = opt.NodesGiven
	sp, err := loadSpaceWith(c.Context, c.Args().First(), withCards)
	if err != nil {
		return nil, err
	}
	sp.Target.Sim.CardsSource = stored
	return sp, nil
}
