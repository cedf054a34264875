//go:build linux

package bench

import (
	"io"
	"net"
	"testing"
	"time"
)

// A dialled TCP connection reads through recvmsg and reports when the
// kernel received the bytes: after they were written, before the read
// returned. The kernel turns packet stamping on lazily after the first
// socket asks for it, so the first replies may carry none (chunkTime then
// falls back to the read time); a stamp must appear within a few.
func TestStampedConnReportsKernelArrival(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wrote := make(chan time.Time, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		one := make([]byte, 1)
		for {
			if _, err := c.Read(one); err != nil || one[0] == 'q' {
				return
			}
			wrote <- time.Now()
			c.Write([]byte("data: hello\n\n"))
		}
	}()
	c, err := dialer(&net.Dialer{})(t.Context(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, ok := c.(*stampedConn)
	if !ok {
		t.Fatalf("dialled %T, want a stamped connection", c)
	}
	buf := make([]byte, 64)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if _, err := sc.Write([]byte("?")); err != nil {
			t.Fatal(err)
		}
		n, err := sc.Read(buf)
		read := time.Now()
		w := <-wrote
		if err != nil || string(buf[:n]) != "data: hello\n\n" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
		at, ok := sc.lastArrival()
		if !ok || at.Before(w.Round(0)) {
			// No stamp yet: the kernel switches stamping on from a work
			// queue. Waiting for that, not timing anything.
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if at.After(read.Round(0)) {
			t.Fatalf("arrival %v after the read returned at %v", at, read)
		}
		sc.Write([]byte("q"))
		if _, err := sc.Read(buf); err != io.EOF {
			t.Errorf("read after the peer closed = %v, want io.EOF", err)
		}
		return
	}
	t.Fatal("no receive timestamp within 5 s")
}
