//go:build linux

package bench

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// stampedConn reads with recvmsg and keeps the kernel's receive time
// (SO_TIMESTAMPNS) of the newest bytes returned.
type stampedConn struct {
	*net.TCPConn
	raw  syscall.RawConn
	oob  []byte
	last atomic.Int64 // Unix ns; 0 until a stamped read
}

// stamped turns on receive timestamps for a TCP connection; any other
// connection, or a kernel that refuses, is returned as is.
func stamped(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c
	}
	return &stampedConn{TCPConn: tc, raw: raw, oob: make([]byte, 128)}
}

func (c *stampedConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n, oobn int
	var rerr error
	err := c.raw.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), p, c.oob, 0)
		return rerr != syscall.EAGAIN // not ready yet: let the poller wait
	})
	switch {
	case err != nil: // deadline or closed: already a net-style error
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("recvmsg", rerr)}
	case n == 0:
		return 0, io.EOF
	}
	if ns, ok := rxTimestamp(c.oob[:oobn]); ok {
		c.last.Store(ns)
	}
	return n, nil
}

func (c *stampedConn) lastArrival() (time.Time, bool) {
	ns := c.last.Load()
	return time.Unix(0, ns), ns != 0
}

// rxTimestamp finds the SCM_TIMESTAMPNS control message (a timespec).
func rxTimestamp(oob []byte) (int64, bool) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, false
	}
	for _, m := range msgs {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			sec := int64(binary.NativeEndian.Uint64(m.Data[0:8]))
			nsec := int64(binary.NativeEndian.Uint64(m.Data[8:16]))
			return sec*1e9 + nsec, true
		}
	}
	return 0, false
}
