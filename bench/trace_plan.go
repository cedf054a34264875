package bench

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

// traceRequests plans a trace profile: the rows of the window, sampled and
// capped, each due at its trace time (from the window's start, divided by
// the speedup), with a prompt whose blocks follow the trace's prefix
// hashes, so requests that share hashes share identical leading tokens on
// the real server and in the simulator alike.
func traceRequests(p Profile) ([]PlannedRequest, error) {
	path := p.DatasetPath
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace dataset: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &KeyError{Key: "dataset_path", Err: fmt.Errorf("trace dataset %s is a directory: name the trace file", path)}
	}
	if st, err := f.Stat(); err == nil && st.Size() > maxTraceBytes {
		return nil, fmt.Errorf("trace dataset %s: %d bytes, more than the %d a plan reads; cut the window out of it first", path, st.Size(), maxTraceBytes)
	}
	br := bufio.NewReaderSize(f, 1<<20)
	format := ""
	if p.Trace != nil {
		format = p.Trace.Format
	}
	head, _ := br.Peek(64 << 10) // a short file is all there is
	detected, detectErr := detectTraceFormat(path, firstLine(head))
	switch {
	case format == "" && detectErr != nil:
		return nil, fmt.Errorf("trace dataset %s: %w", path, detectErr)
	case format == "":
		format = detected
	case detectErr == nil && detected != format:
		// The format given is not the file's: its first row failed to
		// parse as that format, an error about a CSV quote or a JSON
		// key that did not say the format was the mistake.
		return nil, &KeyError{Key: "trace.format", Err: fmt.Errorf("is %q, but the first line of %s is a %s row: set trace.format = %q, or leave it out to detect it", format, path, detected, detected)}
	}
	b := newTraceBuilder(p)
	if err := readTrace(br, format, b.add); err != nil {
		var le *lineError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("trace dataset %s:%d: %s: %w", path, le.line, format, le.err)
		}
		return nil, fmt.Errorf("trace dataset %s: %s: %w", path, format, err)
	}
	if len(b.reqs) == 0 {
		skipped := ""
		if b.skipped > 0 {
			skipped = fmt.Sprintf("; %d rows skipped for 0 tokens, the last for its %s", b.skipped, b.skippedKey)
		}
		return nil, fmt.Errorf("trace dataset %s: %s: no request in the window (%v; %d rows with tokens read%s)", path, format, p.Trace, b.rows, skipped)
	}
	return b.reqs, nil
}

// traceBuilder turns rows into planned requests as they are read, so only
// the window is kept.
type traceBuilder struct {
	p        Profile
	start    time.Duration // window start, trace time from the first row
	end      time.Duration // window end; 0 = none
	speedup  float64
	sample   float64
	block    int
	rng      *rand.Rand
	first    time.Duration // the first row's timestamp: the trace's zero
	prev     time.Duration
	prevLine int
	rows     int
	limit    int // most requests a window may hold (maxTraceRequests)
	// skipped counts the rows of no tokens (skippedKey: the last one's
	// length at 0), for an empty window's error.
	skipped    int
	skippedKey string
	seen       map[uint64]struct{} // full prompt blocks planned so far
	reqs       []PlannedRequest
}

func newTraceBuilder(p Profile) *traceBuilder {
	b := &traceBuilder{p: p, speedup: p.Trace.speedup(), sample: p.Trace.sample(), block: p.Trace.blockTokens(),
		rng: datasetRNG(p.Seed), seen: map[uint64]struct{}{}, limit: maxTraceRequests}
	if t := p.Trace; t != nil {
		b.start = t.Start
		if t.Duration > 0 {
			b.end = t.Start + t.Duration
		}
	}
	return b
}

// add plans one row, or skips it (outside the window, not sampled), or
// stops the read (past the window, cap reached).
func (b *traceBuilder) add(row traceRow, line int) error {
	if k := row.emptyKey(); k != "" {
		b.skipped, b.skippedKey = b.skipped+1, k
		return nil // no request to send; never the trace's first row either
	}
	if b.rows == 0 {
		b.first, b.prev = row.at, row.at
	}
	b.rows++
	if row.at < b.prev {
		return &lineError{line, fmt.Errorf("timestamp %v is before line %d's %v: the trace must be sorted by time", row.at-b.first, b.prevLine, b.prev-b.first)}
	}
	b.prev, b.prevLine = row.at, line
	// One hash per block of the prompt, the last one partial: more than
	// that names blocks the prompt does not have (a row cut short, or
	// block_tokens smaller than the trace's), and the extra ones were
	// silently dropped.
	if most := (row.in + b.block - 1) / b.block; len(row.hashes) > most {
		return &lineError{line, fmt.Errorf("%s lists %d blocks, more than the %d of %d tokens that %d prompt tokens hold (is trace.block_tokens the trace's block size?)",
			row.hashKey, len(row.hashes), most, b.block, row.in)}
	}
	rel := row.at - b.first
	switch {
	case rel < b.start:
		return nil
	case b.end > 0 && rel >= b.end:
		return errStopTrace
	}
	// One draw per row of the window, kept or not, so the sample does not
	// depend on what was kept before.
	offset := b.rng.IntN(tokenSpan)
	if b.sample < 1 && b.rng.Float64() >= b.sample {
		return nil
	}
	if len(b.reqs) >= b.limit {
		return &lineError{line, fmt.Errorf("more than %d requests in the window; narrow trace.duration, or set trace.sample or num_prompts", b.limit)}
	}
	r := b.request(row, offset)
	r.Arrival = time.Duration(float64(rel-b.start) / b.speedup)
	b.reqs = append(b.reqs, r)
	if b.p.NumPrompts > 0 && len(b.reqs) >= b.p.NumPrompts {
		return errStopTrace
	}
	return nil
}

// request builds the row's prompt: one run of the token cycle per hash
// block, placed by the chain of hashes up to it (so equal leading hashes
// give equal tokens and a block's content never depends on a different
// history), then the rest of the prompt from the row's own offset.
func (b *traceBuilder) request(row traceRow, offset int) PlannedRequest {
	r := PlannedRequest{InputLen: row.in, OutputLen: row.out, Group: -1, After: -1, Session: -1, BlockTokens: b.block}
	key, covered, shared := uint64(traceChainSeed), 0, true
	for _, h := range row.hashes {
		if covered >= row.in {
			break // more hashes than tokens: the extra ones name nothing
		}
		key = chainBlock(key, h)
		n := min(b.block, row.in-covered)
		r.segs = append(r.segs, tokenRun{int(key % tokenSpan), n})
		covered += n
		if n < b.block {
			break // a partial last block is not a cacheable block
		}
		r.Blocks = append(r.Blocks, key)
		if _, ok := b.seen[key]; ok && shared {
			r.Shared += n
		} else {
			shared = false
			b.seen[key] = struct{}{}
		}
	}
	if covered < row.in {
		r.segs = append(r.segs, tokenRun{offset, row.in - covered})
	}
	return r
}

// traceChainSeed starts every chain of block keys (any constant works; a
// non-zero one keeps the first key away from a hash of 0).
const traceChainSeed = 0x7472616365

// chainBlock is the key of a block given its parent's key and its hash
// (splitmix64's finaliser over both).
func chainBlock(parent uint64, h int64) uint64 {
	z := parent ^ (uint64(h) + 0x9e3779b97f4a7c15 + parent<<6 + parent>>2)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// KeyError is a dataset problem that one key of the profile is at fault
// for (trace.format, dataset_path), so a space file names that key and
// bench its flag (FlagOfKey).
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string { return e.Key + " " + e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// FlagOfKey is the bench flag that sets a profile key
// ("trace.format" → "--trace-format").
func FlagOfKey(key string) string { return flagOfKey(key) }
