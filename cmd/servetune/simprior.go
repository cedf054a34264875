package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/studydir"
)

// priorFile keeps the prior's predictions in the study's directory.
const priorFile = "prior.jsonl"

// newSimPrior is the study's simulator prior on its cards (nil: the
// embedded ones; the prior is nil
// when [study] prior = "none" or the target has no cards), its
// predictions kept in the study directory so that a resume does not
// screen again. Without a usable file it still works, only slower; the
// returned func closes the file.
func newSimPrior(sp *space.Space, cards *sim.Cards, d studydir.Dir, log zerolog.Logger) (search.Prior, func()) {
	if cards == nil {
		cards = sim.DefaultCards()
	}
	p := simprior.New(sp, cards)
	if p == nil {
		return nil, func() {}
	}
	cp, closer, err := cachedSimPrior(p, sp, cards, d)
	if err != nil {
		log.Warn().Err(err).Msg("the prior's screening is not kept with the study; a resume screens again")
		return p, func() {}
	}
	return cp, func() { _ = closer() }
}

func cachedSimPrior(p search.Prior, sp *space.Space, cards *sim.Cards, d studydir.Dir) (search.Prior, func() error, error) {
	build, err := executableHash()
	if err != nil {
		return nil, nil, err
	}
	key, err := search.PriorKey(sp, cards, build)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(d.Path(), 0o755); err != nil {
		return nil, nil, err
	}
	return search.CachePrior(p, sp, filepath.Join(d.Path(), priorFile), key)
}

// executableHash stands for the simulator's version: any rebuild of
// servetune may change what it predicts.
func executableHash() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("simulator version: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("simulator version: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("simulator version: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
