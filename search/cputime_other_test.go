//go:build !unix

package search

import (
	"testing"
	"time"
)

// processCPU is not measured here: the CPU metric is left out.
func processCPU() time.Duration { return 0 }

func reportCPU(*testing.B, time.Duration) {}
