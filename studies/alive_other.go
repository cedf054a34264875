//go:build !unix

package studies

// pidAlive cannot tell on this platform: every holder may be alive.
func pidAlive(int) bool { return true }
