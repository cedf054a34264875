package simprior

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/prior"
	"github.com/servetune/servetune/space"
)

// File keeps the prior's predictions in the study's directory.
const File = "prior.jsonl"

// InStudy is the study's simulator prior on its cards (nil: the
// embedded ones; the prior is nil
// when [study] prior = "none" or the target has no cards), its
// predictions kept in the study directory dir so that a resume does not
// screen again. Without a usable file it still works, only slower; the
// returned func closes the file.
func InStudy(sp *space.Space, cards *sim.Cards, dir string, log zerolog.Logger) (search.Prior, func()) {
	if cards == nil {
		cards = sim.DefaultCards()
	}
	p := New(sp, cards)
	if p == nil {
		return nil, func() {}
	}
	cp, closer, err := cachedSimPrior(p, sp, cards, dir)
	if err != nil {
		log.Warn().Err(err).Msg("the prior's screening is not kept with the study; a resume screens again")
		return p, func() {}
	}
	return cp, func() { _ = closer() }
}

func cachedSimPrior(p search.Prior, sp *space.Space, cards *sim.Cards, dir string) (search.Prior, func() error, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	return priorIn(p, sp, cards, filepath.Join(dir, File))
}

// priorIn is p with its predictions kept in path, under the key of this
// build of the simulator on these cards.
func priorIn(p search.Prior, sp *space.Space, cards *sim.Cards, path string) (search.Prior, func() error, error) {
	build, err := executableHash()
	if err != nil {
		return nil, nil, err
	}
	key, err := prior.Key(sp, cards, build)
	if err != nil {
		return nil, nil, err
	}
	return prior.Cache(p, sp, path, key)
}

// ForDryRun is the prior a dry run ranks with: the study's kept
// predictions read from a scratch copy of its prior file (a dry run
// writes nothing), so that a dry run after a first run answers without
// screening again. screens is true when nothing usable is kept: the dry
// run then pays the prior's full screening, as the study's first run
// will.
func ForDryRun(p search.Prior, sp *space.Space, cards *sim.Cards, dir string) (prior search.Prior, screens bool, done func()) {
	kept, err := os.ReadFile(filepath.Join(dir, File))
	if p == nil || err != nil {
		return p, p != nil, func() {}
	}
	tmp, err := os.CreateTemp("", "servetune-dry-run-prior-")
	if err != nil {
		return p, true, func() {}
	}
	remove := func() { _ = os.Remove(tmp.Name()) }
	_, err = tmp.Write(kept)
	if cerr := tmp.Close(); err != nil || cerr != nil {
		remove()
		return p, true, func() {}
	}
	cp, closer, err := priorIn(p, sp, cards, tmp.Name())
	if err != nil {
		remove()
		return p, true, func() {}
	}
	known, _ := cp.(interface{ Known() []space.Config })
	return keptOnly(cp), known == nil || len(known.Known()) == 0, func() { _ = closer(); remove() }
}

// keptPrior answers from a cached prior's predictions without offering
// the configs it knows as a start-up to resume: a study's prior file
// holds every config its run predicted, and a dry run's start-up must
// rank the candidates a first run ranks, to show that run's first
// trials. What else the sampler asks reaches the prior beneath (Unwrap).
type keptPrior struct{ cached search.Prior }

func (k keptPrior) Predict(ctx context.Context, c space.Config) ([]float64, bool) {
	return k.cached.Predict(ctx, c)
}

func (k keptPrior) Unwrap() search.Prior {
	if u, ok := k.cached.(interface{ Unwrap() search.Prior }); ok {
		return u.Unwrap()
	}
	return k.cached
}

// keptScreener is keptPrior of a screening prior.
type keptScreener struct{ keptPrior }

func (k keptScreener) Screen(ctx context.Context, c space.Config) ([]float64, bool) {
	return k.cached.(search.Screener).Screen(ctx, c)
}

func keptOnly(cp search.Prior) search.Prior {
	if _, ok := cp.(search.Screener); ok {
		return keptScreener{keptPrior{cp}}
	}
	return keptPrior{cp}
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
