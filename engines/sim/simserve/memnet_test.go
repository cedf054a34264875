package simserve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
)

// memNet is an in-memory network of net.Pipe connections. Servers and
// clients on it block only on channels, so under testing/synctest the
// bubble's clock advances when they all wait — loopback TCP would not let
// it, and a test on the wall clock races the simulated startup.
type memNet struct {
	mu        sync.Mutex
	listeners map[string]*memListener
}

func newMemNet() *memNet { return &memNet{listeners: map[string]*memListener{}} }

func (n *memNet) Listen(network, address string) (net.Listener, error) {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, taken := n.listeners[address]; taken {
		return nil, &net.OpError{Op: "listen", Net: network, Err: syscall.EADDRINUSE}
	}
	l := &memListener{addr: net.TCPAddrFromAddrPort(ap), conns: make(chan net.Conn), done: make(chan struct{})}
	l.close = func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		delete(n.listeners, address)
	}
	n.listeners[address] = l
	return l, nil
}

// DialContext connects to a listener, or is refused as TCP would be.
func (n *memNet) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[address]
	n.mu.Unlock()
	refused := &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	if l == nil {
		return nil, refused
	}
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, refused
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Client is an HTTP client on the network; close its idle connections
// before the bubble ends.
func (n *memNet) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: n.DialContext, MaxIdleConnsPerHost: 64}}
}

type memListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	close func()
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, fmt.Errorf("accept %s: %w", l.addr, net.ErrClosed)
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.close()
	})
	return nil
}

func (l *memListener) Addr() net.Addr { return l.addr }
