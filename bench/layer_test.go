package bench

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// bench is the lowest layer: of the module it imports only its own
// sub-packages and internal/ leaves, never a package above it (it used
// to import space/suggest, the one arrow pointing up).
func TestBenchImportsNothingAboveIt(t *testing.T) {
	const module = "github.com/servetune/servetune/"
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			rest, ours := strings.CutPrefix(path, module)
			if ours && !strings.HasPrefix(rest, "bench/") && !strings.HasPrefix(rest, "internal/") {
				t.Errorf("%s imports %s, above bench", f, path)
			}
		}
	}
	if len(files) == 0 {
		t.Fatal("no source files read")
	}
}
