package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseReader yields the payloads of `data:` lines of a text/event-stream,
// skipping comments (keep-alives), blank lines and other fields. Each data
// line is taken as one event: every engine sends a whole JSON object per line.
type sseReader struct {
	r       *bufio.Reader
	scratch []byte
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// next returns the next data payload; it is valid until the next call.
func (s *sseReader) next() ([]byte, error) {
	for {
		line, err := s.line()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		if !bytes.HasPrefix(line, []byte("data:")) {
			continue // event:, id:, retry:
		}
		line = line[5:]
		if len(line) > 0 && line[0] == ' ' {
			line = line[1:]
		}
		return line, nil
	}
}

// line reads one line without its terminator. A final line cut off by EOF is
// returned as io.ErrUnexpectedEOF: the stream was truncated mid-event.
func (s *sseReader) line() ([]byte, error) {
	b, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.scratch = append(s.scratch[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = s.r.ReadSlice('\n')
			s.scratch = append(s.scratch, b...)
		}
		b = s.scratch
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(b) > 0 {
			return nil, fmt.Errorf("stream cut mid-line: %w", io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}
