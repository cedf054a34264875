package enginetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/servetune/servetune/engines"
)

// Life is one fake engine's life as it recorded it in Options.RecordFile:
// what it ran on and when, so a test of parallel trials can check from
// the engines' side that none shared a GPU or a port.
type Life struct {
	PID  int
	Port int
	// Devices is the engine's CUDA_VISIBLE_DEVICES, split.
	Devices []string
	// TP is the tensor-parallel size it was launched with (1 when unset).
	TP int
	// Start is when it began to load; Stop when SIGTERM reached it (zero
	// when it never did: it crashed, or was killed).
	Start, Stop time.Time
	// First and Last bound the completions requests it served, from the
	// first one's arrival to the last one's end (zero when it served
	// none, or was never stopped): when it was busy with a trial, not
	// just kept warm.
	First, Last time.Time
}

// span tracks the first and last moments requests were in flight.
type span struct{ first, last atomic.Int64 }

func (s *span) add(t time.Time) {
	n := t.UnixNano()
	s.first.CompareAndSwap(0, n)
	for {
		old := s.last.Load()
		if old >= n || s.last.CompareAndSwap(old, n) {
			return
		}
	}
}

func (s *span) times() (time.Time, time.Time) {
	f, l := s.first.Load(), s.last.Load()
	if f == 0 {
		return time.Time{}, time.Time{}
	}
	return time.Unix(0, f), time.Unix(0, l)
}

// event is one line of a record file: a fake engine's start or stop.
type event struct {
	Event   string    `json:"event"`
	PID     int       `json:"pid"`
	Port    int       `json:"port"`
	Devices string    `json:"devices"`
	TP      int       `json:"tp"`
	At      time.Time `json:"at"`
	First   time.Time `json:"first,omitzero"`
	Last    time.Time `json:"last,omitzero"`
}

// newEvent describes this process as the engine p parsed.
func newEvent(p engines.Parsed) event {
	tp := 1
	if n, ok := p.Config.Int(engines.KnobTP); ok {
		tp = int(n)
	}
	return event{PID: os.Getpid(), Port: p.Port, Devices: os.Getenv("CUDA_VISIBLE_DEVICES"), TP: tp}
}

// write appends the event as one line; O_APPEND keeps the lines of
// engines running side by side whole.
func (e event) write(path, what string) {
	if path == "" {
		return
	}
	e.Event, e.At = what, time.Now()
	b, _ := json.Marshal(e)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}

// ReadLives reads a record file into one Life per engine process, in the
// order they started.
func ReadLives(path string) ([]Life, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Life
	at := map[int]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		i, ok := at[e.PID]
		switch {
		case e.Event == "start":
			at[e.PID] = len(out)
			out = append(out, Life{PID: e.PID, Port: e.Port, Devices: splitDevices(e.Devices), TP: e.TP, Start: e.At})
		case e.Event == "stop" && ok:
			out[i].Stop, out[i].First, out[i].Last = e.At, e.First, e.Last
		default:
			return nil, fmt.Errorf("%s:%d: %s of an engine that never started (pid %d)", path, n, e.Event, e.PID)
		}
	}
	return out, sc.Err()
}

func splitDevices(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
