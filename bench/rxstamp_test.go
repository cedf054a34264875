package bench

import (
	"net"
	"testing"
	"time"
)

type fakeArrival struct {
	net.Conn
	at time.Time
	ok bool
}

func (f fakeArrival) lastArrival() (time.Time, bool) { return f.at, f.ok }

func TestChunkTimePrefersAConsistentKernelStamp(t *testing.T) {
	start := time.Now()
	wall := start.Round(0)
	sent, now := 10*time.Millisecond, 50*time.Millisecond
	cases := []struct {
		name string
		conn net.Conn
		want time.Duration
	}{
		{"plain connection", nil, now},
		{"stamp inside the request", fakeArrival{at: wall.Add(30 * time.Millisecond), ok: true}, 30 * time.Millisecond},
		{"no stamp yet", fakeArrival{}, now},
		{"stamp before the request was sent", fakeArrival{at: wall.Add(5 * time.Millisecond), ok: true}, now},
		{"stamp in the future (clock step)", fakeArrival{at: wall.Add(time.Second), ok: true}, now},
	}
	for _, c := range cases {
		if got := chunkTime(c.conn, start, sent, now); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
