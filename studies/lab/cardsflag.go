package lab

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/servetune/servetune/engines/sim"
)

// LoadCards reads `servetune lab --cards` over the built-in cards, and
// --reality-cards over those (each nil when not given); a file that does
// not load is a UsageError naming its flag.
func LoadCards(cardsFile, realityFile string) (cards, reality *sim.Cards, err error) {
	if cardsFile != "" {
		cards = sim.DefaultCards()
		if err := addCards(cards, "cards", cardsFile); err != nil {
			return nil, nil, err
		}
	}
	if realityFile != "" {
		reality = sim.DefaultCards()
		if err := addCards(reality, "cards", cardsFile); err != nil {
			return nil, nil, err
		}
		if err := addCards(reality, "reality-cards", realityFile); err != nil {
			return nil, nil, err
		}
	}
	return cards, reality, nil
}

// WriteJSON writes every run's curves to path, when given (lab --json).
func WriteJSON(path string, all []*Result) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// addCards reads the cards file of a flag over cards (nothing for "").
func addCards(cards *sim.Cards, flag, path string) error {
	if path == "" {
		return nil
	}
	if err := cards.AddPath(path); err != nil {
		return UsageError{fmt.Errorf("--%s: %v", flag, err)}
	}
	return nil
}
