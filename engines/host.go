package engines

import "github.com/servetune/servetune/space"

// BindHost is where an engine's processes listen: the target's host, else
// loopback (servers bind 127.0.0.1 unless told otherwise).
func BindHost(t space.Target) string {
	if t.Host == "" {
		return "127.0.0.1"
	}
	return t.Host
}

// DialHost turns a wildcard bind address into one a client can dial.
func DialHost(host string) string {
	switch host {
	case "0.0.0.0", "", "::":
		return "127.0.0.1"
	}
	return host
}
