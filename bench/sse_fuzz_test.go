package bench

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// The fuzz reader uses bufio's smallest buffer and a small line cap, so
// short inputs exercise joining lines across refills and the cap.
const (
	fuzzBuffer  = 16
	fuzzMaxLine = 64
)

// FuzzSSEReader checks the reader against a straightforward reference
// implementation of the same framing rules.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {\"a\":1}\n\ndata: [DONE]\n\n",
		": keep-alive\r\n\r\nevent: message\nid: 3\ndata:{\"b\":2}\r\nretry: 10\n",
		"data: " + strings.Repeat("x", fuzzMaxLine-6) + "\n",
		"data: " + strings.Repeat("x", fuzzMaxLine-5) + "\n",
		"data: " + strings.Repeat("y", 3*fuzzMaxLine),
		"data: {\"cut",
		"\n\n\r\n:\ndata\ndata:\ndata: \n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want, wantErr := refSSE(in, fuzzMaxLine)
		r := newSSEReaderSize(bytes.NewReader(in), fuzzBuffer, fuzzMaxLine)
		var got []string
		var err error
		for {
			var d []byte
			if d, err = r.next(); err != nil {
				break
			}
			got = append(got, string(d))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("payloads %q, want %q", got, want)
		}
		if !slices.ContainsFunc(wantErr, func(e error) bool { return errors.Is(err, e) }) {
			t.Fatalf("error %v, want one of %v", err, wantErr)
		}
	})
}

// refSSE splits in into lines naively. It returns the payloads before the
// stream ended and the errors the end may be reported as: a final line
// without newline that is longer than the cap may be noticed as either.
func refSSE(in []byte, maxLine int) ([]string, []error) {
	var out []string
	for {
		i := bytes.IndexByte(in, '\n')
		switch {
		case i < 0 && len(in) == 0:
			return out, []error{io.EOF}
		case i < 0 && len(in) > maxLine:
			return out, []error{io.ErrUnexpectedEOF, errLineTooLong}
		case i < 0:
			return out, []error{io.ErrUnexpectedEOF}
		case i > maxLine:
			return out, []error{errLineTooLong}
		}
		line := strings.TrimSuffix(string(in[:i]), "\r")
		in = in[i+1:]
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			out = append(out, strings.TrimPrefix(d, " "))
		}
	}
}

func TestSSEReaderLineCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		line int // bytes before the newline
		ok   bool
	}{
		{"at the cap", fuzzMaxLine, true},
		{"one past the cap", fuzzMaxLine + 1, false},
		{"far past the cap", 100 * fuzzMaxLine, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "data: " + strings.Repeat("x", tc.line-6) + "\ndata: next\n"
			r := newSSEReaderSize(strings.NewReader(in), fuzzBuffer, fuzzMaxLine)
			_, err := r.next()
			if tc.ok != (err == nil) || !tc.ok && !errors.Is(err, errLineTooLong) {
				t.Fatalf("err = %v, want ok=%v or errLineTooLong", err, tc.ok)
			}
			if tc.ok {
				if d, err := r.next(); err != nil || string(d) != "next" {
					t.Errorf("next line %q, %v", d, err)
				}
			}
		})
	}
}
