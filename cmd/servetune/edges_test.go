package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, t.TempDir(), "--version")
	if code != 0 || !strings.HasPrefix(out, "servetune version ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d %q", code, out)
	}
}

// A mistyped command, subcommand or flag is bad input (exit 2) and names
// the nearest one.
func TestUsageErrorsExitTwoWithDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"shwo", "x"}, `unknown command "shwo"; did you mean "show"?`},
		{[]string{"frobnicate"}, `unknown command "frobnicate" (servetune --help lists them)`},
		{[]string{"version"}, `unknown command "version"; did you mean "--version"?`},
		{[]string{"sim", "serv"}, `sim: unknown command "serv"; did you mean "serve"?`},
		{[]string{"show", "--srot", "total_tps", "x"}, "show: unknown flag --srot; did you mean --sort?"},
		{[]string{"--log-levle", "warn", "studies"}, "unknown flag --log-levle; did you mean --log-level?"},
		{[]string{"completion", "tcsh"}, `no script for shell "tcsh"`},
	} {
		code, out, errText := runCLI(t, t.TempDir(), tc.args...)
		if code != exitUsage || !strings.Contains(errText, tc.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errText, tc.want)
		}
	}
}

// A backquoted word in a flag's usage is urfave/cli's placeholder for its
// value: only a NAME in capitals reads as one (`--storage servetune
// worker` did not).
func TestHelpPlaceholdersAreNames(t *testing.T) {
	placeholder := regexp.MustCompile("`([^`]*)`")
	name := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	app := newApp(&env{})
	var walk func(path string, flags []cli.Flag, cmds []*cli.Command)
	walk = func(path string, flags []cli.Flag, cmds []*cli.Command) {
		for _, f := range flags {
			u, ok := f.(cli.DocGenerationFlag)
			if !ok {
				continue
			}
			for _, m := range placeholder.FindAllStringSubmatch(u.GetUsage(), -1) {
				if !name.MatchString(m[1]) {
					t.Errorf("%s --%s: placeholder %q in %q", path, f.Names()[0], m[1], u.GetUsage())
				}
			}
		}
		for _, c := range cmds {
			walk(path+" "+c.Name, c.Flags, c.Subcommands)
		}
	}
	walk("servetune", app.Flags, app.Commands)
	_, out, _ := runCLI(t, t.TempDir(), "run", "--help")
	if !strings.Contains(out, "--storage URL") || !strings.Contains(out, "--dir DIR") {
		t.Errorf("run --help:\n%s", out)
	}
}

// --help lists the exit codes main decides, and docs/reliability.md's
// table lists the same.
func TestExitCodesAreListedInHelpAndDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ := runCLI(t, t.TempDir(), "--help")
	row := regexp.MustCompile(`(?m)^\| (\d+) \|`)
	var documented []int
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		n, _ := strconv.Atoi(m[1])
		documented = append(documented, n)
	}
	var codes []int
	for _, c := range exitCodes() {
		codes = append(codes, c.code)
		if !regexp.MustCompile(`(?m)^\s+` + strconv.Itoa(c.code) + `  ` + regexp.QuoteMeta(c.meaning) + `$`).MatchString(out) {
			t.Errorf("--help does not list exit code %d (%s):\n%s", c.code, c.meaning, out)
		}
	}
	if !slices.Equal(codes, documented) {
		t.Errorf("docs/reliability.md lists exit codes %v, main decides %v", documented, codes)
	}
}

func TestShellCompletion(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runCLI(t, dir, "--generate-bash-completion")
	if code != 0 || !slices.Contains(strings.Fields(out), "run") || !slices.Contains(strings.Fields(out), "completion") {
		t.Errorf("commands: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, dir, "show", "quickstart", "--so", "--generate-bash-completion")
	if code != 0 || strings.TrimSpace(out) != "--sort" {
		t.Errorf("flags of show after a study name: exit %d %q, want --sort", code, out)
	}
	for _, name := range []string{"night", "quickstart"} {
		if err := os.MkdirAll(filepath.Join(dir, "studies", name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "studies", name, "study.db"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{"show", "best", "report", "export"} {
		code, out, _ = runCLI(t, dir, cmd, "--generate-bash-completion")
		if names := strings.Fields(out); code != 0 || !slices.Equal(names, []string{"night", "quickstart"}) {
			t.Errorf("study names for %s: exit %d %q, want night quickstart", cmd, code, out)
		}
	}
	code, out, _ = runCLI(t, dir, "show", "--dir", "elsewhere", "--generate-bash-completion")
	if code != 0 || strings.TrimSpace(out) != "" {
		t.Errorf("study names under an empty --dir: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, dir, "sim", "--generate-bash-completion")
	if subs := strings.Fields(out); code != 0 || !slices.Equal(subs, []string{"serve", "check", "fit"}) {
		t.Errorf("subcommands of sim: exit %d %q", code, out)
	}
	for shell, want := range map[string]string{"bash": "complete -o bashdefault", "zsh": "#compdef servetune", "fish": "complete -c servetune"} {
		code, out, errText := runCLI(t, dir, "completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d %s\n%.300s", shell, code, errText, out)
			continue
		}
		checkSyntax(t, shell, out)
	}
}

// checkSyntax has the shell parse the script without running it, where
// the shell is installed.
func checkSyntax(t *testing.T, shell, script string) {
	t.Helper()
	sh, err := exec.LookPath(shell)
	if err != nil {
		t.Logf("%s not installed: its script's syntax is not checked", shell)
		return
	}
	f := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sh, "-n", f).CombinedOutput(); err != nil {
		t.Errorf("%s -n: %v\n%s", shell, err, out)
	}
}
