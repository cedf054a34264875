//go:build unix && !(linux && (amd64 || arm64))

package launch

import (
	"os/signal"
	"syscall"
)

// resetSignal gives sig back to the runtime's default; for signals the
// runtime turns into a crash, exitWith's 128+n is what remains.
func resetSignal(sig syscall.Signal) { signal.Reset(sig) }
