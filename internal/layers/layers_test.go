package layers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// graph maps each package, by its path inside the module ("search/motpe"),
// to the import paths of its non-test files, sorted and without repeats.
type graph map[string][]string

// layer is one rung of the module's top-level order: a package may import
// packages of its own rung and of those below, never of one above.
type layer struct {
	name string
	pkgs []string // patterns: "a/b" is that package, "a/b/..." it and its subtree
}

// rule narrows what the packages it covers may import, where the order
// alone would allow more (siblings on one rung, or the leaves).
type rule struct {
	pkgs    []string // patterns of the packages the rule covers
	may     []string // patterns of the module packages they may import
	stdOnly bool     // outside the module they may import the standard library only
	why     string   // said in the message, so a failure explains itself
}

// layering is the declared shape of the module: its order, lowest first,
// and its rules.
type layering struct {
	module string
	order  []layer
	rules  []rule
}

// servetune is the layering docs/architecture.md describes. bench sits
// lowest because space reads its metric table, cost sits under space
// because space loads the price file, and search under engines because
// the simulator's fidelity check ranks with search's statistics.
func servetune(module string) layering {
	return layering{
		module: module,
		order: []layer{
			{"internal leaves", []string{"internal/..."}},
			{"bench", []string{"bench/..."}},
			{"cost", []string{"cost/..."}},
			{"space", []string{"space/..."}},
			{"search", []string{"search/..."}},
			{"engines", []string{"engines/..."}},
			{"objective", []string{"objective/..."}},
			{"studies", []string{"studies/..."}},
			{"cmd", []string{"cmd/...", "examples/..."}},
		},
		rules: []rule{
			{
				pkgs: []string{"search/..."},
				may:  []string{"search/...", "space", "bench", "internal/..."},
				why:  "search decides what to try and ranks what was measured; it runs, launches and stores nothing",
			},
			{
				pkgs: []string{"search"},
				may:  []string{"space", "bench", "internal/..."},
				why:  "the root package is the vocabulary every sampler family imports, so it imports none of them",
			},
			{
				pkgs: []string{"search/motpe", "search/goptuna", "search/grid", "search/modelfree"},
				may:  []string{"search", "search/internal/...", "space"},
				why:  "a sampler family imports the vocabulary and the space only, never a sibling family or the registry",
			},
			{
				pkgs: []string{"search/prior"},
				may:  []string{"search", "space"},
				why:  "the prior decorates whatever sampler it is given, so it imports no family and not the registry that builds them",
			},
			{
				pkgs: []string{"search/internal/..."},
				may:  []string{"search", "space"},
				why:  "the families' shared fixtures sit beside them, not above them",
			},
			{
				pkgs:    []string{"internal/suggest"},
				stdOnly: true,
				why:     "every layer, bench the lowest, imports suggest, so it imports the standard library only",
			},
			{
				pkgs: []string{"studies/store/pgurl"},
				may:  []string{"internal/suggest"},
				why:  "space checks a storage value through pgurl by a hook, so pgurl imports no module package but internal/suggest",
			},
		},
	}
}

// match says whether a module-relative package path fits a pattern.
func match(pattern, pkg string) bool {
	if base, tree := strings.CutSuffix(pattern, "/..."); tree {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func matchAny(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if match(p, pkg) {
			return true
		}
	}
	return false
}

// rank is the index of a package's rung in the order, or false when the
// table has none for it.
func rank(order []layer, pkg string) (int, bool) {
	for i, l := range order {
		if matchAny(l.pkgs, pkg) {
			return i, true
		}
	}
	return 0, false
}

// isStd tells a standard-library import path by its first element, which
// outside the standard library is a domain and holds a dot.
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

// violations lists every import the layering forbids, one message each
// naming the importing package and the forbidden import, sorted.
func violations(l layering, g graph) []string {
	var out []string
	for pkg, imps := range g {
		r, ok := rank(l.order, pkg)
		if !ok {
			out = append(out, fmt.Sprintf("%s is in no layer of the table: place it in the order", pkg))
			continue
		}
		for _, imp := range imps {
			out = append(out, orderViolation(l, pkg, r, imp)...)
			out = append(out, ruleViolations(l, pkg, imp)...)
			out = append(out, fixtureViolation(l, pkg, imp)...)
		}
	}
	sort.Strings(out)
	return out
}

// orderViolation is the arrow pointing up, if the import is one. A module
// package in no layer is reported once, as a package, not at each import.
func orderViolation(l layering, pkg string, r int, imp string) []string {
	dep, ours := strings.CutPrefix(imp, l.module+"/")
	if !ours {
		return nil
	}
	dr, ok := rank(l.order, dep)
	if !ok || dr <= r {
		return nil
	}
	return []string{fmt.Sprintf("%s imports %s: an arrow pointing up (%s is below %s)",
		pkg, dep, l.order[r].name, l.order[dr].name)}
}

// fixture says whether a package holds test fixtures, named as Go names
// them (httptest, fstest): searchtest, enginetest, benchtest, pgtest.
func fixture(pkg string) bool { return strings.HasSuffix(path.Base(pkg), "test") }

// fixtureViolation is a product package importing a fixture package:
// fixtures may break rules that hold for product code (the engine-name
// check exempts them), so only tests and other fixtures may import them.
func fixtureViolation(l layering, pkg, imp string) []string {
	dep, ours := strings.CutPrefix(imp, l.module+"/")
	if !ours || !fixture(dep) || fixture(pkg) {
		return nil
	}
	return []string{fmt.Sprintf("%s imports %s: only tests and other fixtures import a fixture package", pkg, dep)}
}

// ruleViolations are the rules covering pkg that the import breaks.
func ruleViolations(l layering, pkg, imp string) []string {
	var out []string
	dep, ours := strings.CutPrefix(imp, l.module+"/")
	for _, ru := range l.rules {
		if !matchAny(ru.pkgs, pkg) {
			continue
		}
		if (ours && !matchAny(ru.may, dep)) || (!ours && ru.stdOnly && !isStd(imp)) {
			out = append(out, fmt.Sprintf("%s imports %s: %s", pkg, dep, ru.why))
		}
	}
	return out
}

// unused lists the rules and layers that cover no package of the graph: a
// package renamed or moved leaves a rule behind that guards nothing.
func unused(l layering, g graph) []string {
	covers := func(patterns []string) bool {
		for pkg := range g {
			if matchAny(patterns, pkg) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, ly := range l.order {
		if !covers(ly.pkgs) {
			out = append(out, fmt.Sprintf("layer %s covers no package", ly.name))
		}
	}
	for _, ru := range l.rules {
		if !covers(ru.pkgs) {
			out = append(out, fmt.Sprintf("rule for %s covers no package", strings.Join(ru.pkgs, ", ")))
		}
	}
	return out
}

// modulePath reads the module line of a go.mod.
func modulePath(gomod []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(rest); err == nil {
			rest = unq
		}
		if rest != "" {
			return rest, nil
		}
	}
	return "", errors.New("go.mod has no module line")
}

// moduleRoot is the nearest directory at or above dir holding a go.mod.
func moduleRoot(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
		dir = up
	}
}

// skipDir is what the go command leaves out of ./... too: testdata,
// vendor, directories starting with . or _, and nested modules.
func skipDir(fsys fs.FS, p, name string) bool {
	if p == "." {
		return false
	}
	if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := fs.Stat(fsys, path.Join(p, "go.mod"))
	return err == nil
}

// readGraph parses the imports of every non-test .go file under the
// module's root. Build constraints are not applied: an import behind a tag
// (unix, !linux) is an arrow on the platforms that build it, so it counts.
// go/parser, not `go list`, so the test needs no go binary on PATH.
func readGraph(fsys fs.FS) (graph, error) {
	seen := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDir(fsys, p, d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		af, err := parser.ParseFile(fset, p, src, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		pkg := path.Dir(p)
		if seen[pkg] == nil {
			seen[pkg] = map[string]bool{}
		}
		for _, imp := range af.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: import %s: %w", p, imp.Path.Value, err)
			}
			seen[pkg][ip] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the import graph: %w", err)
	}
	return toGraph(seen), nil
}

func toGraph(seen map[string]map[string]bool) graph {
	g := graph{}
	for pkg, imps := range seen {
		list := make([]string, 0, len(imps))
		for ip := range imps {
			list = append(list, ip)
		}
		sort.Strings(list)
		g[pkg] = list
	}
	return g
}
