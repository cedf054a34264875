package suggest

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// suggest is a leaf: every layer, bench the lowest, imports it, so it
// may import nothing of the module or that would be an arrow pointing up.
func TestSuggestImportsOnlyTheStandardLibrary(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, imp := range af.Imports {
			if path := strings.Trim(imp.Path.Value, `"`); strings.Contains(path, ".") {
				t.Errorf("%s imports %s: suggest may import the standard library only", f, path)
			}
		}
	}
	if n == 0 {
		t.Fatal("no source files read")
	}
}
