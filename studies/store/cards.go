package store

import "context"

// Study metadata keys of the simulator cards a study ran with: their
// text and the file they came from.
const (
	cardsKey     = "sim_cards"
	cardsFileKey = "sim_cards_file"
)

// Cards is the text of the simulator cards the study ran with, "" when
// it recorded none (the built-in cards).
func (s *Store) Cards(ctx context.Context) (string, error) { return s.Meta(ctx, cardsKey) }

// SetCards records the simulator cards the study runs with: the file
// they came from and its text (what a resume without --cards uses).
func (s *Store) SetCards(ctx context.Context, file, text string) error {
	if err := s.SetMeta(ctx, cardsFileKey, file); err != nil {
		return err
	}
	return s.SetMeta(ctx, cardsKey, text)
}
