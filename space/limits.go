package space

import (
	"fmt"
	"strings"
)

// The TOML decoder's cost grows with the square of the nesting depth of
// inline tables and arrays (a 130 KB file of nested `{` took 10 GB and
// 23 s), and a search space needs neither megabytes nor deep nesting, so
// input beyond these limits is refused before it is decoded.
const (
	// MaxFileSize is the largest space file accepted, in bytes.
	MaxFileSize = 1 << 20
	// MaxDepth is the deepest nesting of `[`/`{` accepted outside strings
	// and comments; table headers such as [[enqueue]] count too.
	MaxDepth = 16
	// MaxTrials bounds study.n_trials (and --n-trials): a study records
	// every trial, and a million is years of engine time.
	MaxTrials = 1_000_000
	// MaxRepeat bounds study.repeat (and --repeat): measurements of one
	// config.
	MaxRepeat = 100
)

// limits returns a problem when src is too large or too deeply nested.
// It is one linear pass that only tracks strings and comments, so it is
// cheap for any input.
func limits(file, src string) *Problem {
	if len(src) > MaxFileSize {
		return &Problem{File: file, Line: 1, Msg: fmt.Sprintf("file is larger than %d bytes (1 MiB), the most a search space may be", MaxFileSize)}
	}
	if line, ok := tooDeep(src, MaxDepth); ok {
		return &Problem{File: file, Line: line, Msg: fmt.Sprintf("brackets or braces nested more than %d deep", MaxDepth)}
	}
	return nil
}

// tooDeep reports the line at which nesting first exceeds limit.
func tooDeep(src string, limit int) (line int, exceeded bool) {
	sc := scanner{src: src, line: 1}
	depth := 0
	for sc.i < len(src) {
		switch c := src[sc.i]; c {
		case '\n':
			sc.line++
			sc.i++
		case '#':
			sc.skipComment()
		case '"', '\'':
			sc.skipString(c)
		case '[', '{':
			if depth++; depth > limit {
				return sc.line, true
			}
			sc.i++
		case ']', '}':
			depth = max(depth-1, 0)
			sc.i++
		default:
			sc.i++
		}
	}
	return 0, false
}

type scanner struct {
	src  string
	i    int
	line int
}

func (sc *scanner) skipComment() {
	if j := strings.IndexByte(sc.src[sc.i:], '\n'); j >= 0 {
		sc.i += j
		return
	}
	sc.i = len(sc.src)
}

// skipString moves past a basic ("), literal (') or multi-line string,
// counting the newlines inside it. An unterminated string runs to the end;
// the decoder reports it.
func (sc *scanner) skipString(q byte) {
	delim := string(q)
	if strings.HasPrefix(sc.src[sc.i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	sc.i += len(delim)
	for sc.i < len(sc.src) {
		switch {
		case strings.HasPrefix(sc.src[sc.i:], delim):
			sc.i += len(delim)
			return
		case sc.src[sc.i] == '\\' && q == '"':
			sc.i++ // the escaped character is skipped below
		case sc.src[sc.i] == '\n' && len(delim) == 1:
			return // a single-line string cannot span lines
		}
		if sc.i < len(sc.src) && sc.src[sc.i] == '\n' {
			sc.line++
		}
		sc.i++
	}
}
