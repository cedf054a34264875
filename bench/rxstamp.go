package bench

import (
	"context"
	"net"
	"time"
)

// arrivals is implemented by connections that know when the bytes of
// their last read arrived, from the kernel's receive timestamp. A chunk's
// time is then when it reached the machine, not when the client's
// goroutine got a core to read it: under 512 streams on two cores the
// second can lag by milliseconds.
type arrivals interface {
	lastArrival() (time.Time, bool)
}

// dialer returns the connections the load generator uses: receive-stamped
// where the platform supports it (rxstamp_linux.go), plain elsewhere.
func dialer(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return stamped(c), nil
	}
}

// chunkTime is the offset of a chunk from the benchmark start: its kernel
// arrival time when the connection has one that is consistent with the
// request (after it was sent, not after now), else now.
func chunkTime(conn net.Conn, start time.Time, sent, now time.Duration) time.Duration {
	a, ok := conn.(arrivals)
	if !ok {
		return now
	}
	at, ok := a.lastArrival()
	if !ok {
		return now
	}
	// start carries a monotonic reading; Round(0) drops it so that the
	// difference uses the wall clock, as the kernel's stamp does.
	off := at.Sub(start.Round(0))
	if off < sent || off > now {
		return now
	}
	return off
}
