package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// nonEmptyFlags are flags whose empty value silently means "not given":
// `--storage "$DB"` with DB unset ran a local SQLite study instead of
// joining the shared one, `--optuna ""` mirrored nothing, `--dir ""`
// wrote the study under the working directory. Flags where empty means
// something (`lab --mo-samplers ""`: skip) are not listed.
//
// show --sort "" listed by trial number, report --html "" and --markdown
// "" wrote the default NAME-report.html, --out "" failed after the work:
// only string flags are held to it (best --markdown is a switch).
var nonEmptyFlags = []string{"storage", "optuna", "dir", "cards", "nodes", "worker-id", "engines", "warm-start", "image", "router-image", "rdma-resource", "base-url", "model",
	"sort", "html", "markdown", "out", "endpoint", "dataset", "goodput", "json", "api-key-env", "landscape"}

// checkFlagValues refuses, before a command runs, a listed flag given
// with an empty value, and a --dir that names something other than a
// directory (mkdir failed after the space loaded, exit 1).
func checkFlagValues(c *cli.Context) error {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if !slices.Contains(nonEmptyFlags, name) || !c.IsSet(name) {
			continue
		}
		var vals []string
		switch f.(type) {
		case *cli.StringFlag:
			vals = []string{c.String(name)}
		case *cli.StringSliceFlag:
			vals = c.StringSlice(name)
		}
		for _, v := range vals {
			if strings.TrimSpace(v) == "" {
				return usagef("%s: --%s is empty (an unset shell variable?): give a value, or leave the flag out", c.Command.Name, name)
			}
		}
	}
	if err := flagCombinations(c); err != nil {
		return err
	}
	if err := outputPaths(c); err != nil {
		return err
	}
	if slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return f.Names()[0] == "dir" }) {
		if st, err := os.Stat(c.String("dir")); err == nil && !st.IsDir() {
			return usagef("%s: --dir %s is not a directory: studies live in DIR/<name>/study.db", c.Command.Name, c.String("dir"))
		}
		if f := fileAbove(c.String("dir")); f != "" {
			// mkdir failed after the space loaded (exit 1).
			return usagef("%s: --dir %s is under %s, which is not a directory", c.Command.Name, c.String("dir"), f)
		}
	}
	return nil
}

// exclusiveFlags are pairs of a command's flags of which only the first
// took effect (`show --json --csv` printed JSON, `best --export docker
// --json` the export).
var exclusiveFlags = map[string][][2]string{
	"show": {{"json", "csv"}},
	"best": {{"json", "markdown"}, {"export", "json"}, {"export", "markdown"}},
}

// needsFlag are flags that act only beside another, and were silently
// ignored without it (`best --trial 2` showed the best trial).
var needsFlag = map[string]map[string]string{
	"best": {"trial": "export", "force": "export", "image": "export", "shared-cache": "export", "router-image": "export", "rdma-resource": "export", "node-selector": "export"},
}

// flagCombinations refuses flags given together that cannot all act.
func flagCombinations(c *cli.Context) error {
	name := c.Command.Name
	for _, p := range exclusiveFlags[name] {
		if c.IsSet(p[0]) && c.IsSet(p[1]) {
			return usagef("%s: give --%s or --%s, not both", name, p[0], p[1])
		}
	}
	for _, f := range slices.Sorted(maps.Keys(needsFlag[name])) {
		if need := needsFlag[name][f]; c.IsSet(f) && !c.IsSet(need) {
			return usagef("%s: --%s acts only with --%s", name, f, need)
		}
	}
	return nil
}

// outputFiles and outputDirs are the flags naming what a command writes.
// A file that is a directory, or in a directory that does not exist, and
// a directory that is a file failed only once the study was read and
// the report built (exit 1).
var (
	outputFiles = map[string][]string{"report": {"html"}, "calibrate": {"out"}}
	outputDirs  = map[string][]string{"report": {"markdown"}}
)

func outputPaths(c *cli.Context) error {
	name := c.Command.Name
	for _, f := range outputFiles[name] {
		p := c.String(f)
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return usagef("%s: --%s %s is a directory: give the file to write", name, f, p)
		}
		if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
			return usagef("%s: --%s %s: its directory %s does not exist", name, f, p, filepath.Dir(p))
		}
	}
	for _, f := range outputDirs[name] {
		if p := c.String(f); p != "" {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return usagef("%s: --%s %s is a file: give the directory to write into", name, f, p)
			}
		}
	}
	return nil
}

// takeRequired turns the flags marked Required into a list checked by
// requiredFlags: urfave/cli's own check returns an error of an unexported
// type, which main could not tell from a failure (exit 1, not 2).
func takeRequired(flags []cli.Flag) []string {
	var out []string
	for _, f := range flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Required {
			sf.Required = false
			out = append(out, sf.Name)
		}
	}
	return out
}

// requiredFlags refuses a command run without one of its required flags.
func requiredFlags(c *cli.Context, required []string) error {
	for _, name := range required {
		if !c.IsSet(name) {
			return usagef("%s: --%s is required", c.Command.Name, name)
		}
	}
	return nil
}

// fileAbove is the nearest existing ancestor of path when it is not a
// directory ("/dev/null" for /dev/null/x), else "".
func fileAbove(path string) string {
	for p := filepath.Dir(filepath.Clean(path)); ; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil {
			if st.IsDir() {
				return ""
			}
			return p
		}
		if p == filepath.Dir(p) {
			return ""
		}
	}
}
