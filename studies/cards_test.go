package studies

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// writeModelCard writes a cards file holding one model card, acme: a
// built-in dense model's with more layers.
func writeModelCard(t *testing.T, path string, more int) {
	t.Helper()
	var m sim.ModelCard
	for _, c := range sim.DefaultCards().Models {
		if c.MoELayers == 0 {
			m = c
			break
		}
	}
	m.Name, m.Aliases, m.Layers = "acme", nil, m.Layers+more
	var b bytes.Buffer
	if err := sim.CardTOML(&b, m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTargetCards(t *testing.T) {
	sp := studySpace(t, 3, "")
	if c, err := TargetCards(sp.Target); err != nil || len(c.Models) != len(sim.DefaultCards().Models) {
		t.Errorf("no cards named: %v", err)
	}
	tg := sp.Target
	tg.Sim.Cards = filepath.Join(t.TempDir(), "missing.toml")
	if _, err := TargetCards(tg); !errors.As(err, new(InputError)) {
		t.Errorf("a cards file that does not load: %v, want bad input", err)
	}
	tg = sp.Target
	tg.Sim.CardsSource = "[[model]]\nname = 1\n"
	_, err := TargetCards(tg)
	if err == nil || errors.As(err, new(InputError)) || !strings.Contains(err.Error(), "the cards stored with the study no longer load") {
		t.Errorf("stored cards that no longer load: %v, want an error that is not the user's input", err)
	}
}

// The first run stores the cards file's text; a resume with the same
// cards passes, one with no cards named simulates on the stored ones,
// one whose cards changed is refused (or warned about with on_drift =
// "warn").
func TestStudyCardsStoredAndDrift(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "cards.toml")
	writeModelCard(t, file, 2)
	sp := studySpace(t, 3, "")
	sp.Target.Sim.Cards = file
	st, err := store.Open(ctx, studydir.For(dir, sp).DB(), store.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cards, err := StudyCards(ctx, sp, st, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cards.Model("acme"); err != nil {
		t.Fatalf("acme: %v", err)
	}
	stored, _ := st.Cards(ctx)
	if want, _ := os.ReadFile(file); stored != string(want) {
		t.Errorf("stored %q", stored)
	}
	if _, err := StudyCards(ctx, sp, st, zerolog.Nop()); err != nil {
		t.Errorf("a resume with the same cards: %v", err)
	}
	bare := studySpace(t, 3, "")
	if c, err := StudyCards(ctx, bare, st, zerolog.Nop()); err != nil || bare.Target.Sim.CardsSource != stored {
		t.Errorf("a resume naming no cards: %v, source %q", err, bare.Target.Sim.CardsSource)
	} else if _, err := c.Model("acme"); err != nil {
		t.Errorf("the stored cards are not simulated on: %v", err)
	}
	writeModelCard(t, file, 4)
	_, err = StudyCards(ctx, sp, st, zerolog.Nop())
	if !errors.Is(err, ErrCardsChanged) || !errors.As(err, new(InputError)) {
		t.Errorf("changed cards: %v, want ErrCardsChanged as bad input", err)
	}
	sp.Study.OnDrift = "warn"
	var logs bytes.Buffer
	if _, err := StudyCards(ctx, sp, st, zerolog.New(&logs)); err != nil || !strings.Contains(logs.String(), "simulator cards changed") {
		t.Errorf("on_drift = warn: %v\n%s", err, logs.String())
	}
	if now, _ := st.Cards(ctx); now == stored {
		t.Error("the new cards were not stored after the warning")
	}
}

// A study's stored space and trials read back without writing: the
// space it ran with, its trials.
func TestOpenStudyReadsTheStoredSpace(t *testing.T) {
	ctx := context.Background()
	sp := studySpace(t, 3, "")
	d := studydir.For(t.TempDir(), sp)
	st, err := store.Open(ctx, d.DB(), store.Create)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(st.SetMeta(ctx, "space", studySource(3, "")), st.SetMeta(ctx, "space_file", "unit.toml")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	got, trials, err := OpenStudy(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if got.Study.Name != "unit" || got.File != "unit.toml" || len(trials) != 0 {
		t.Errorf("read %q from %s, %d trials", got.Study.Name, got.File, len(trials))
	}
	st, _ = store.Open(ctx, d.DB(), store.Create)
	st.SetMeta(ctx, "space", "[study\n")
	st.Close()
	if _, _, err := OpenStudy(ctx, d); err == nil || !strings.Contains(err.Error(), "stored space") {
		t.Errorf("a stored space that no longer parses: %v", err)
	}
}
