package space

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a space file.
type Problem struct {
	File string
	Line int // 0 when unknown
	Key  string
	Msg  string
}

// String describes the error position.
func (p Problem) String() string {
	pos := p.File
	if p.Line > 0 {
		pos = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	if p.Key != "" {
		return fmt.Sprintf("%s: %s: %s", pos, p.Key, p.Msg)
	}
	return fmt.Sprintf("%s: %s", pos, p.Msg)
}

// Error lists every problem found in a space file. Callers exit with code
// 2 on it, having written nothing.
type Error struct {
	File     string
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	n := len(e.Problems)
	if n == 1 {
		fmt.Fprintf(&b, "invalid search space %s: 1 problem:", e.File)
	} else {
		fmt.Fprintf(&b, "invalid search space %s: %d problems:", e.File, n)
	}
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}
