package bench

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestSSEReader(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	in := ": keep-alive\n\nevent: message\nid: 3\ndata: {\"a\":1}\r\n\r\ndata:{\"b\":2}\n\nretry: 10\ndata: " + long + "\n\ndata: [DONE]\n\n"
	r := newSSEReader(strings.NewReader(in), 0)
	var got []string
	for {
		d, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d))
	}
	want := []string{`{"a":1}`, `{"b":2}`, long, "[DONE]"}
	if len(got) != len(want) {
		t.Fatalf("got %d payloads, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("payload %d = %.40q, want %.40q", i, got[i], want[i])
		}
	}
}

func TestSSEReaderCutMidLine(t *testing.T) {
	r := newSSEReader(strings.NewReader("data: {\"a\":1}\n\ndata: {\"choi"), 0)
	if _, err := r.next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
}
