//go:build !unix

package cputime

import "time"

// Process is 0: this system's CPU time is not read here.
func Process() time.Duration { return 0 }

// PeakRSSMB is 0: this system's peak memory is not read here.
func PeakRSSMB() float64 { return 0 }
