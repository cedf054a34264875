package prior

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// cachedPrior remembers a prior's predictions in a file kept with the
// study, so a resumed study (or one killed during its start-up screening)
// does not simulate again what it simulated before. Each prediction is
// appended as one JSON line as soon as it is made: a kill loses at most
// the predictions in flight. The file's first line is the key the
// predictions hold for (the parsed space, the cards, the simulator's
// build); a file with another key is started over.
type cachedPrior struct {
	inner search.Prior
	sp    *space.Space
	mu    sync.Mutex
	memo  map[string]prediction // kind + config key
	// known are the configs screened before, in file order; screening is
	// the full prediction without a Screener.
	known     []space.Config
	knownKind string
	w         *os.File
}

// cachedScreener is a cachedPrior over a Screener.
type cachedScreener struct{ *cachedPrior }

// cacheLine is one line of the file: the header (Key) or a prediction.
type cacheLine struct {
	Key      string       `json:"key,omitempty"`
	Kind     string       `json:"kind,omitempty"` // "screen" or "predict"
	Config   space.Config `json:"config,omitempty"`
	Values   []float64    `json:"values,omitempty"`
	Feasible bool         `json:"feasible,omitempty"`
}

const (
	kindScreen  = "screen"
	kindPredict = "predict"
)

// Cache wraps p so that its predictions are kept in path under key
// (see cachedPrior). Close the returned closer when the study ends.
func Cache(p search.Prior, sp *space.Space, path, key string) (search.Prior, func() error, error) {
	cp := &cachedPrior{inner: p, sp: sp, memo: map[string]prediction{}, knownKind: kindPredict}
	_, screens := p.(search.Screener)
	if screens {
		cp.knownKind = kindScreen
	}
	if err := cp.load(path, key); err != nil {
		return nil, nil, err
	}
	if screens {
		return cachedScreener{cp}, cp.w.Close, nil
	}
	return cp, cp.w.Close, nil
}

// load reads the predictions path holds for key, then opens it for
// appending (starting it over when its key differs).
func (cp *cachedPrior) load(path, key string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("prior cache: %w", err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var head cacheLine
	fresh := !sc.Scan() || json.Unmarshal(sc.Bytes(), &head) != nil || head.Key != key
	if !fresh {
		_ = eachLine(sc, cp.remember) // a read cut short keeps what it read
	}
	if fresh {
		cp.memo, cp.known = map[string]prediction{}, nil
		err = startOver(f, key)
	}
	f.Close()
	if err != nil {
		return fmt.Errorf("prior cache: %w", err)
	}
	// Appending, so that workers sharing the study directory interleave
	// whole lines.
	cp.w, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("prior cache: %w", err)
	}
	return nil
}

// eachLine calls fn with each prediction line sc holds; a torn or
// foreign line (a kill mid-write) is skipped.
func eachLine(sc *bufio.Scanner, fn func(cacheLine)) error {
	for sc.Scan() {
		var l cacheLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Config == nil || (l.Kind != kindScreen && l.Kind != kindPredict) {
			continue
		}
		fn(l)
	}
	return sc.Err()
}

// remember adds one line's prediction.
func (cp *cachedPrior) remember(l cacheLine) {
	k := l.Kind + "\x00" + search.ConfigKey(cp.sp, l.Config)
	if _, dup := cp.memo[k]; dup {
		return
	}
	cp.memo[k] = prediction{l.Values, l.Feasible}
	if l.Kind == cp.knownKind {
		cp.known = append(cp.known, l.Config)
	}
}

func startOver(f *os.File, key string) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	b, _ := json.Marshal(cacheLine{Key: key})
	_, err := f.WriteAt(append(b, '\n'), 0)
	return err
}

// Unwrap is the prior whose predictions are kept. What else the sampler
// asks of a prior (its memory plan, MemoryPlanner) is asked of it: the
// file keeps predictions only, and the cache must not hide the rest.
func (cp *cachedPrior) Unwrap() search.Prior { return cp.inner }

// unwrapPrior is the prior beneath p's cache, or p.
func unwrapPrior(p search.Prior) search.Prior {
	if u, ok := p.(interface{ Unwrap() search.Prior }); ok {
		return u.Unwrap()
	}
	return p
}

// Known is the configs screened before, in the order they were.
func (cp *cachedPrior) Known() []space.Config {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return append([]space.Config(nil), cp.known...)
}

// Predict is the inner prior's prediction, remembered.
func (cp *cachedPrior) Predict(ctx context.Context, c space.Config) ([]float64, bool) {
	return cp.get(ctx, kindPredict, c, cp.inner.Predict)
}

// Screen is the inner screener's screening, remembered.
func (cs cachedScreener) Screen(ctx context.Context, c space.Config) ([]float64, bool) {
	return cs.get(ctx, kindScreen, c, cs.inner.(search.Screener).Screen)
}

func (cp *cachedPrior) get(ctx context.Context, kind string, c space.Config, f func(context.Context, space.Config) ([]float64, bool)) ([]float64, bool) {
	k := kind + "\x00" + search.ConfigKey(cp.sp, c)
	cp.mu.Lock()
	p, ok := cp.memo[k]
	cp.mu.Unlock()
	if ok {
		return p.values, p.feasible
	}
	v, feasible := f(ctx, c)
	if ctx.Err() != nil {
		return v, feasible // cut short: not a prediction to keep
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.memo[k] = prediction{v, feasible}
	if kind == cp.knownKind {
		cp.known = append(cp.known, c)
	}
	b, err := json.Marshal(cacheLine{Kind: kind, Config: c, Values: v, Feasible: feasible})
	if err == nil {
		// One write per line: a kill
		// tears at most this line, which load skips. A failed write only
		// costs a later resume the simulation.
		_, _ = cp.w.Write(append(b, '\n'))
	}
	return v, feasible
}

// knownConfigs is what p screened before (a cachedPrior), or nothing.
func knownConfigs(p search.Prior) []space.Config {
	k, ok := p.(interface{ Known() []space.Config })
	if !ok {
		return nil
	}
	cs := k.Known()
	return cs[:min(len(cs), screenStart)]
}

// Key identifies what a prior's predictions depend on: the parsed
// space's knobs, rules, target, benchmarks and objectives, plus extra
// (the simulator's cards and build). Any change gives another key.
func Key(sp *space.Space, extra ...any) (string, error) {
	params := make([]any, len(sp.Params))
	for i, p := range sp.Params {
		params[i] = struct {
			P    space.Param
			When string
		}{p, exprText(p.When)}
	}
	rules := make([]string, len(sp.Rules))
	for i, r := range sp.Rules {
		rules[i] = exprText(r.Expr)
	}
	b, err := json.Marshal([]any{sp.Target, params, rules, sp.Profiles, sp.SLO, sp.Objectives, sp.Constraints, extra})
	if err != nil {
		return "", fmt.Errorf("prior key: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func exprText(e *space.Expr) string {
	if e == nil {
		return ""
	}
	return e.String()
}

// Kept is one full prediction a study's prior file holds.
type Kept struct {
	Values   []float64
	Feasible bool
}

// ReadKept reads the full predictions (not the shortened screenings,
// whose values are on another scale) kept in path, by search.ConfigKey:
// what the report compares an unmeasured neighbour of a winner by. The
// header's key is not checked: it names the build and cards that
// predicted, and the predictions that guided the study stay what they
// were when another build renders its report. A missing file is no
// prediction; a torn line is skipped, as load skips it.
func ReadKept(sp *space.Space, path string) (map[string]Kept, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prior cache: %w", err)
	}
	defer f.Close()
	out := map[string]Kept{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	err = eachLine(sc, func(l cacheLine) {
		if l.Kind != kindPredict {
			return
		}
		k := search.ConfigKey(sp, l.Config)
		if _, dup := out[k]; !dup {
			out[k] = Kept{Values: l.Values, Feasible: l.Feasible}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("prior cache %s: %w", path, err)
	}
	return out, nil
}
