package report

import (
	"runtime/debug"
	"strings"
)

// Version is the version reports carry: VersionOf this binary.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return VersionOf(bi)
}

// VersionOf is the module version a binary was built from — a tag for
// `go install ...@v1.2.3`, "(devel)" for a build of a checkout — with the
// commit when the build recorded one, "-dirty" when the checkout had
// changes: "(devel) 5b47d74a1c2e-dirty".
func VersionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" || strings.Contains(v, rev) {
		return v // Go 1.24+ stamps a pseudo-version that names the commit (and +dirty)
	}
	if dirty {
		rev += "-dirty"
	}
	return v + " " + rev
}
