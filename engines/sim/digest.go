package sim

import (
	"crypto/sha256"
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

// sources is the simulator's own code, so that what caches simulated
// outcomes (the lab's exhaustive grids) can tell when the model that
// produced them changed.
//
//go:embed *.go
var sources embed.FS

// CodeDigest is a digest of the simulator's non-test sources — its event
// loop, step and memory models and their fitted coefficients. Any edit
// changes it, including ones that change no result: a cache keyed on it
// may miss needlessly but never serves outcomes of another model.
func CodeDigest() string {
	h := sha256.New()
	names, err := fs.Glob(sources, "*.go")
	if err != nil {
		panic(fmt.Sprintf("sim: embedded sources: %v", err)) // build is broken
	}
	for _, name := range names { // fs.Glob sorts
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := sources.ReadFile(name)
		if err != nil {
			panic(fmt.Sprintf("sim: embedded %s: %v", name, err))
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}
