package lab

import (
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
)

// storedOutcome is an outcome as a cache file keeps it.
type storedOutcome struct {
	Metrics     map[string]float64
	Checkpoints []objective.Checkpoint
	Replayed    bool
	GPUSeconds  float64
	Err         string
	Failure     *engines.Failure
}

// storedErr gives back a cached error's text and its engine failure, so
// a run from the cache classifies and reports trials as the run that
// simulated them.
type storedErr struct {
	msg string
	f   *engines.Failure
}

func (e *storedErr) Error() string { return e.msg }

func (e *storedErr) Unwrap() error {
	if e.f == nil {
		return nil
	}
	return e.f
}

// cacheFile names an oracle's cache: a digest of everything that decides
// its outcomes — the reality's cards and skew, the target, the profiles
// (their seeds included), the simulator's code and coefficients
// (sim.CodeDigest) and the cache format — so that a grid simulated by
// another model is never read back. What the simulator calls outside
// engines/sim (bench's summaries, objective's SimRunner) is not in it.
func (o *Oracle) cacheFile(dir string) string { return o.cacheName(dir, sim.CodeDigest()) }

// cacheName is cacheFile for the simulator code of the given digest.
func (o *Oracle) cacheName(dir, code string) string {
	key := fmt.Appendf(nil, "v2|%s|%#v|%#v|%#v", code, *o.cards, o.sp.Target, o.sp.Profiles)
	if o.skew != nil {
		key = fmt.Appendf(key, "|%#v", *o.skew)
	}
	h := sha256.Sum256(key)
	return filepath.Join(dir, fmt.Sprintf("oracle-%x.gob", h[:8]))
}

// Restore loads the oracle's outcomes cached in dir, if any.
func (o *Oracle) Restore(dir string) error {
	o.mu.Lock()
	o.dir = dir
	o.mu.Unlock()
	f, err := os.Open(o.cacheFile(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var stored map[string]storedOutcome
	if err := gob.NewDecoder(f).Decode(&stored); err != nil {
		return fmt.Errorf("oracle cache %s: %w", f.Name(), err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, s := range stored {
		out := &outcome{metrics: s.Metrics, checkpoints: s.Checkpoints, replayed: s.Replayed, gpuSeconds: s.GPUSeconds}
		if s.Err != "" {
			out.err = &storedErr{msg: s.Err, f: s.Failure}
		}
		o.cache[k] = out
	}
	return nil
}

// Persist writes the oracle's outcomes to dir for the next run.
func (o *Oracle) Persist(dir string) error {
	o.mu.Lock()
	stored := make(map[string]storedOutcome, len(o.cache))
	for k, out := range o.cache {
		if interrupted(out.err) {
			continue // not an outcome of the config
		}
		s := storedOutcome{Metrics: out.metrics, Checkpoints: out.checkpoints, Replayed: out.replayed, GPUSeconds: out.gpuSeconds}
		if out.err != nil {
			s.Err = out.err.Error()
			s.Failure, _ = engines.AsFailure(out.err)
		}
		stored[k] = s
	}
	o.mu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "oracle-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := gob.NewEncoder(tmp).Encode(stored); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), o.cacheFile(dir))
}

// RestoreAll restores each oracle and its screening twin from dir ("":
// no cache).
func RestoreAll(dir string, oracles ...*Oracle) error {
	return eachCached(dir, oracles, (*Oracle).Restore)
}

// PersistAll persists each oracle and its screening twin to dir ("": no
// cache), and the scaled machines it keeps for the prior
// (prior_machine.go).
func PersistAll(dir string, oracles ...*Oracle) error {
	for _, o := range oracles {
		if err := eachCached(dir, o.kept(), (*Oracle).Persist); err != nil {
			return err
		}
	}
	return eachCached(dir, oracles, (*Oracle).Persist)
}

func eachCached(dir string, oracles []*Oracle, f func(*Oracle, string) error) error {
	if dir == "" {
		return nil
	}
	for _, o := range oracles {
		if err := f(o, dir); err != nil {
			return err
		}
		if s := o.Screening(); s != o {
			if err := f(s, dir); err != nil {
				return err
			}
		}
	}
	return nil
}
