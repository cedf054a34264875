package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// A server that streams a line without end fails the request as a protocol
// error once the line passes the cap, instead of the client buffering it.
// Not parallel: it measures the process's allocations.
func TestRunLineCap(t *testing.T) {
	const (
		lineCap = 1 << 20
		limit   = 64 << 20 // what the server would send if never stopped
	)
	filler := []byte(strings.Repeat("x", 32<<10))
	var sent int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if _, err := w.Write([]byte("data: ")); err != nil {
			return
		}
		for sent = 0; sent < limit; sent += len(filler) {
			if _, err := w.Write(filler); err != nil {
				return // the client gave up
			}
		}
	}))
	defer srv.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Run(context.Background(), Client{BaseURL: srv.URL, Model: "m"},
		Profile{InputLen: 4, OutputLen: 4, NumPrompts: 1}, RunOptions{maxLine: lineCap})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Records[0]
	if r.Success || r.Class != ClassProtocol || !strings.Contains(r.Error, "SSE line too long") {
		t.Fatalf("record %+v, want a protocol error for the long line", r)
	}
	if sent >= limit {
		t.Errorf("the server sent all %d bytes: the client read the whole line", sent)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 8*lineCap {
		t.Errorf("allocated %d MiB for a %d MiB line cap", grown>>20, lineCap>>20)
	}
}
