package enginetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// DeclaredTarget loads the engines an engine declaration names through a
// minimal space, the way a space file declares them: include is prepended
// (e.g. an `include = [...]` line) and decl appended (the
// `[engines.<name>]` tables). Both the adapters' and the launcher's
// tests need a declared engine built exactly as a study would build it.
func DeclaredTarget(t testing.TB, engine, include, decl string) space.Target {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "space.toml")
	src := include + "[study]\nname = \"d\"\n[target]\nrunner = \"process\"\nmodel = \"/models/tiny.gguf\"\nengine = \"" + engine + "\"\n" +
		"[[objectives]]\nmetric = \"total_tps\"\ndirection = \"maximize\"\n[params.max_running]\nvalues = [4, 8]\n" + decl
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := space.Load(context.Background(), path, space.Options{Engines: engines.Names(), Supports: engines.Supports, Profile: bench.Lookup})
	if err != nil {
		t.Fatal(err)
	}
	return sp.Target
}
