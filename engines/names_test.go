package engines_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines"
)

// registryTables are the files that may spell an engine's name: the
// registry, which names the built-in engines, and each one's own file,
// where its flags, port, image, health path and GPU count live.
var registryTables = []string{"engines/registry.go", "engines/vllm.go", "engines/sglang.go", "engines/trtllm.go", "engines/ollama.go"}

// belowEngines is bench: engines imports it, so it cannot ask the registry,
// and its names are its own vocabulary (benchtest's streaming dialects,
// llamacpp among them; `bench --format vllm`, the layout of `vllm bench
// serve`), not engine identity.
const belowEngines = "bench/"

// fixtures reports whether a file belongs to a package of test fixtures
// (named like httptest: searchtest, enginetest): only tests import them
// (internal/layers holds every product package to that), and a fixture
// below engines (search/internal/searchtest) cannot ask the registry.
func fixtures(rel string) bool {
	return strings.HasSuffix(filepath.Base(filepath.Dir(rel)), "test")
}

// TestEngineNamesOnlyInRegistry fails when a Go string literal equal to an
// engine's name appears in a non-test file outside the registry's tables:
// code outside engines asks the registry (Lookup, GPUs, Device, …) or uses
// the name constants (engines.VLLM) where it imitates one engine.
func TestEngineNamesOnlyInRegistry(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, belowEngines) || fixtures(rel) {
			return nil
		}
		hits, err := nameLiterals(path, nil)
		if err != nil {
			return err
		}
		switch {
		case len(hits) == 0:
		case slices.Contains(registryTables, rel):
		default:
			for _, h := range hits {
				t.Errorf("%s:%s: engine name literal outside the registry; ask engines.Lookup or use the engines name constant", rel, h)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNameLiteralsFinds keeps the check above able to fail.
func TestNameLiteralsFinds(t *testing.T) {
	src := "package p\nfunc f(e string) bool {\n\tswitch e {\n\tcase `sglang`:\n\t}\n\treturn e == \"vllm\" || e == \"vllm serve\"\n}\n"
	hits, err := nameLiterals("p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"4:7 sglang", "6:14 vllm"}; !slices.Equal(hits, want) {
		t.Fatalf("hits = %q, want %q", hits, want)
	}
}

// nameLiterals lists "line:col name" for each string literal of the file
// (src, when not nil) whose value is an engine name.
func nameLiterals(path string, src any) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var hits []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if v, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(engines.Names(), v) {
			p := fset.Position(lit.Pos())
			hits = append(hits, strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Column)+" "+v)
		}
		return true
	})
	return hits, nil
}
