package preflight

import (
	"net"
	"strconv"

	"github.com/servetune/servetune/space"
)

// checkPorts: engines can bind the target's host, and an engine that
// always listens on one port finds it free and runs one at a time.
func checkPorts(sp *space.Space, workers int, w World) Check {
	const name = "ports"
	host := sp.Target.Host
	if host == "" {
		host = "127.0.0.1"
	}
	l, err := w.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return fail(name, "cannot listen on %s: %v", host, err)
	}
	l.Close()
	for _, e := range engineNames(sp) {
		d, declared := sp.Target.Declared[e]
		if !declared || !d.Port.None() || d.DefaultPort == 0 {
			continue
		}
		if workers > 1 {
			return fail(name, "engine %s always listens on port %d: --workers %d would start %d of them on one port", e, d.DefaultPort, workers, workers)
		}
		addr := net.JoinHostPort(host, strconv.Itoa(d.DefaultPort))
		l, err := w.Listen("tcp", addr)
		if err != nil {
			return fail(name, "engine %s listens on %s, which is taken: %v", e, addr, err)
		}
		l.Close()
	}
	return ok(name, "engines can listen on %s", host)
}
