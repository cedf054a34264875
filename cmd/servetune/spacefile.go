package main

import (
	"errors"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// spaceOptions wires what the space validator needs from downstream packages.
func spaceOptions() space.Options {
	return space.Options{
		Supports: engines.Supports,
		Engines:  engines.Names(),
		Profile:  bench.Lookup,
		Metric:   bench.KnownMetric,
	}
}

// loadSpace reads a space file; a bad file is a usage error (exit 2).
func loadSpace(path string) (*space.Space, error) {
	sp, err := space.Load(path, spaceOptions())
	var se *space.Error
	if errors.As(err, &se) {
		return nil, usageError{err}
	}
	return sp, err
}

// parseStoredSpace re-reads the space a study was created with.
func parseStoredSpace(file, src string) (*space.Space, error) {
	return space.Parse(file, src, spaceOptions())
}
