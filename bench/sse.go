package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxSSELine bounds one line of an event stream. Engines send one JSON
// object per line, a few hundred bytes (a long tool call: kilobytes); a
// line past this is a broken or hostile server, and buffering it would grow
// the client's memory without bound.
const maxSSELine = 16 << 20

// sseBufferSize is the read buffer: most lines fit it, so reading them
// copies nothing.
const sseBufferSize = 32 << 10

// errLineTooLong fails a request whose stream sent an over-long line; the
// client classifies it as a protocol error.
var errLineTooLong = errors.New("SSE line too long")

// sseReader yields the payloads of `data:` lines of a text/event-stream,
// skipping comments (keep-alives), blank lines and other fields. Each data
// line is taken as one event: every engine sends a whole JSON object per line.
type sseReader struct {
	r       *bufio.Reader
	scratch []byte
	maxLine int
}

// newSSEReader reads r with lines capped at maxLine bytes (0: maxSSELine).
func newSSEReader(r io.Reader, maxLine int) *sseReader {
	return newSSEReaderSize(r, sseBufferSize, maxLine)
}

// newSSEReaderSize takes the buffer size too, so tests can push short
// lines through the path that joins a line across buffer refills.
func newSSEReaderSize(r io.Reader, size, maxLine int) *sseReader {
	if maxLine <= 0 {
		maxLine = maxSSELine
	}
	return &sseReader{r: bufio.NewReaderSize(r, size), maxLine: maxLine}
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
		b, err = s.long(b)
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(b) > 0 {
			return nil, fmt.Errorf("stream cut mid-line: %w", io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	if len(b)-1 > s.maxLine {
		return nil, s.tooLong()
	}
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// long joins a line longer than the buffer in scratch, giving up once it
// exceeds maxLine so memory stays bounded by maxLine plus one buffer.
func (s *sseReader) long(b []byte) ([]byte, error) {
	s.scratch = append(s.scratch[:0], b...)
	var err error = bufio.ErrBufferFull
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(s.scratch) > s.maxLine {
			return nil, s.tooLong()
		}
		b, err = s.r.ReadSlice('\n')
		s.scratch = append(s.scratch, b...)
	}
	return s.scratch, err
}

func (s *sseReader) tooLong() error {
	s.scratch = nil // do not keep the big buffer alive for the next request
	return fmt.Errorf("%w: no newline within %d bytes", errLineTooLong, s.maxLine)
}
