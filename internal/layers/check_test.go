package layers

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestModuleKeepsItsLayers reads the module's real import graph and holds
// it to the declared layering: no arrow pointing up, none between sibling
// sampler families, and the leaves kept leaves.
func TestModuleKeepsItsLayers(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module, err := modulePath(gomod)
	if err != nil {
		t.Fatal(err)
	}
	g, err := readGraph(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	// A reader that saw nothing would pass every rule: the registry must
	// be seen importing a family, and the module must look its size.
	if !slices.Contains(g["search/samplers"], module+"/search/motpe") || len(g) < 30 {
		t.Fatalf("the import graph was not read: %d packages, search/samplers imports %v", len(g), g["search/samplers"])
	}
	l := servetune(module)
	for _, v := range violations(l, g) {
		t.Error(v)
	}
	for _, u := range unused(l, g) {
		t.Error(u)
	}
}

func TestViolations(t *testing.T) {
	const m = "example.com/m"
	l := servetune(m)
	cases := []struct {
		name string
		g    graph
		want []string
	}{
		{
			name: "the real shape passes",
			g: graph{
				"space":           {"fmt", m + "/bench", m + "/cost"},
				"search":          {m + "/space", m + "/bench"},
				"search/motpe":    {"math/rand", m + "/search", m + "/space"},
				"search/goptuna":  {"github.com/c-bata/goptuna", m + "/search"},
				"search/samplers": {m + "/search/motpe", m + "/search/prior"},
				"search/prior":    {m + "/search", m + "/space"},
				"engines/sim":     {m + "/search", m + "/space"},
				"cmd/servetune":   {m + "/studies", m + "/search/samplers"},
			},
		},
		{
			name: "a product package imports a fixture",
			g:    graph{"search/motpe": {m + "/search/internal/searchtest"}, "engines/enginetest": {m + "/bench/benchtest"}},
			want: []string{"search/motpe imports search/internal/searchtest: only tests and other fixtures import a fixture package"},
		},
		{
			name: "a family imports a sibling",
			g:    graph{"search/motpe": {m + "/search/grid"}},
			want: []string{"search/motpe imports search/grid: a sampler family imports the vocabulary and the space only, never a sibling family or the registry"},
		},
		{
			name: "a family imports the registry",
			g:    graph{"search/grid": {m + "/search/samplers"}},
			want: []string{"search/grid imports search/samplers: a sampler family imports the vocabulary and the space only, never a sibling family or the registry"},
		},
		{
			name: "the prior imports a family",
			g:    graph{"search/prior": {m + "/search/modelfree"}},
			want: []string{"search/prior imports search/modelfree: the prior decorates whatever sampler it is given, so it imports no family and not the registry that builds them"},
		},
		{
			name: "search imports what runs trials",
			g:    graph{"search/modelfree": {m + "/objective"}},
			want: []string{
				"search/modelfree imports objective: a sampler family imports the vocabulary and the space only, never a sibling family or the registry",
				"search/modelfree imports objective: an arrow pointing up (search is below objective)",
				"search/modelfree imports objective: search decides what to try and ranks what was measured; it runs, launches and stores nothing",
			},
		},
		{
			name: "an arrow pointing up between top-level layers",
			g:    graph{"space": {m + "/studies/store"}},
			want: []string{"space imports studies/store: an arrow pointing up (space is below studies)"},
		},
		{
			name: "a leaf imports outside the standard library",
			g:    graph{"internal/suggest": {"strings", "github.com/x/y"}},
			want: []string{"internal/suggest imports github.com/x/y: every layer, bench the lowest, imports suggest, so it imports the standard library only"},
		},
		{
			name: "pgurl imports a module package beside suggest",
			g:    graph{"studies/store/pgurl": {m + "/internal/suggest", m + "/studies"}},
			want: []string{"studies/store/pgurl imports studies: space checks a storage value through pgurl by a hook, so pgurl imports no module package but internal/suggest"},
		},
		{
			name: "a package outside the table",
			g:    graph{"tools/gen": {m + "/space"}},
			want: []string{"tools/gen is in no layer of the table: place it in the order"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := violations(l, c.g)
			if !slices.Equal(got, c.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, pkg string
		want         bool
	}{
		{"search", "search", true},
		{"search", "search/motpe", false},
		{"search/...", "search", true},
		{"search/...", "search/internal/searchtest", true},
		{"search/...", "searchlight", false},
		{"internal/...", "internal/suggest", true},
	}
	for _, c := range cases {
		if got := match(c.pattern, c.pkg); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.pattern, c.pkg, got, c.want)
		}
	}
}

func TestUnused(t *testing.T) {
	l := layering{
		module: "m",
		order:  []layer{{"a", []string{"a/..."}}, {"gone", []string{"gone"}}},
		rules:  []rule{{pkgs: []string{"a/b"}}, {pkgs: []string{"a/moved"}}},
	}
	got := unused(l, graph{"a/b": nil})
	want := []string{"layer gone covers no package", "rule for a/moved covers no package"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestModulePath(t *testing.T) {
	cases := []struct {
		gomod, want string
		err         bool
	}{
		{"module github.com/servetune/servetune\n\ngo 1.26\n", "github.com/servetune/servetune", false},
		{"// comment\nmodule \"example.com/q\"\n", "example.com/q", false},
		{"modulex foo\n", "", true},
		{"go 1.26\n", "", true},
	}
	for _, c := range cases {
		got, err := modulePath([]byte(c.gomod))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("modulePath(%q) = %q, %v; want %q, error %v", c.gomod, got, err, c.want, c.err)
		}
	}
}

// The reader counts non-test files only, every platform's files, and
// leaves out what ./... leaves out: testdata, hidden directories and
// nested modules.
func TestReadGraph(t *testing.T) {
	fsys := fstest.MapFS{
		"go.mod":               {Data: []byte("module m\n")},
		"a/a.go":               {Data: []byte("package a\nimport (\n\t\"fmt\"\n\t\"m/b\"\n)\n")},
		"a/a_unix.go":          {Data: []byte("//go:build unix\n\npackage a\nimport \"m/c\"\nimport \"fmt\"\n")},
		"a/a_test.go":          {Data: []byte("package a\nimport \"m/d\"\n")},
		"a/testdata/x.go":      {Data: []byte("package x\nimport \"m/e\"\n")},
		".hidden/h.go":         {Data: []byte("package h\nimport \"m/f\"\n")},
		"nested/go.mod":        {Data: []byte("module n\n")},
		"nested/n.go":          {Data: []byte("package n\nimport \"m/g\"\n")},
		"b/b.go":               {Data: []byte("package b\n")},
		"b/README.md":          {Data: []byte("not go")},
		"only_tests/t_test.go": {Data: []byte("package t\nimport \"m/a\"\n")},
	}
	got, err := readGraph(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := graph{"a": {"fmt", "m/b", "m/c"}, "b": {}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
