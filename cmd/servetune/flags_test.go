package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFlagRefusals: a bad flag value is refused before anything is
// written, by run and by its dry run alike, naming the flag (exit 2).
// --gpus is checked even where one trial at a time leaves it unused, and
// a dry run looks for the --warm-start study as the run would.
func TestRunFlagRefusals(t *testing.T) {
	space, err := filepath.Abs("testdata/kill.toml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--gpus", "0-"}, "--gpus: "},
		{[]string{"--n-trials", "-5"}, "--n-trials must be between 1 and"},
		{[]string{"--n-trials", "0"}, "--n-trials must be between 1 and"},
		{[]string{"--n-trials", "1000000000000"}, "--n-trials must be between 1 and"},
		{[]string{"--repeat", "1000"}, "--repeat must be between 1 and"},
		{[]string{"--warm-start", "nosuchstudy"}, `--warm-start: no study "nosuchstudy"`},
		// Issue 48's fresh round: each of these ran a study (exit 0) or
		// failed after the space loaded (exit 1).
		{[]string{"--storage", ""}, "--storage is empty"},
		{[]string{"--optuna", ""}, "--optuna is empty"},
		{[]string{"--dir", ""}, "--dir is empty"},
		{[]string{"--dir", space}, "is not a directory"},
		{[]string{"--confirm", "NaN"}, "--confirm must be between 0 and 0.5"},
	}
	for _, c := range cases {
		for _, dry := range []bool{true, false} {
			args := append([]string{"run", "--dir", "st"}, c.args...)
			if dry {
				args = append(args, "--dry-run")
			}
			dir := t.TempDir()
			code, _, stderr := runCLI(t, dir, append(args, space)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("%v: exit %d, want 2 and %q\n%s", args, code, c.want, stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%v: wrote %v", args, entries)
			}
		}
	}
}

// Flags that cannot all act are refused before the study is read; each
// was silently ignored (issue 48's fresh round). The study need not
// exist: the flags are refused first.
func TestViewFlagCombinationsRefused(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"show", "--json", "--csv", "q"}, "give --json or --csv, not both"},
		{[]string{"best", "--json", "--markdown", "q"}, "give --json or --markdown, not both"},
		{[]string{"best", "--export", "docker", "--json", "q"}, "give --export or --json, not both"},
		{[]string{"best", "--trial", "2", "q"}, "--trial acts only with --export"},
		{[]string{"best", "--force", "q"}, "--force acts only with --export"},
		{[]string{"best", "--rdma-resource", "x/y", "q"}, "--rdma-resource acts only with --export"},
		{[]string{"best", "--node-selector", "H100:pool=a", "q"}, "--node-selector acts only with --export"},
		{[]string{"best", "--export", "docker", "--image", "", "q"}, "--image is empty"},
		{[]string{"report", "--html", ".", "q"}, "--html . is a directory"},
		{[]string{"report", "--html", "no/such/dir/r.html", "q"}, "its directory no/such/dir does not exist"},
		{[]string{"report", "--markdown", "f", "q"}, "--markdown f is a file"},
		{[]string{"calibrate", "--out", "no/such/dir/c.toml", "q"}, "its directory no/such/dir does not exist"},
		{[]string{"calibrate", "q"}, "calibrate: --out is required"},
		{[]string{"testmodel"}, "testmodel: --out is required"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", c.args, code, c.want, stderr)
		}
	}
}
