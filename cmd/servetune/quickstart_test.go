package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// The quickstart's final report for its seed is the contract that
// refactors of the search/objective/studies seam must keep: the same
// sampler, pruning and simulator must give the same trials, front and
// serving commands, byte for byte.
func TestQuickstartReportIsStable(t *testing.T) {
	example, err := filepath.Abs("../../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs("testdata/quickstart.golden")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI(t, t.TempDir(), "run", example)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errText)
	}
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("quickstart report changed (go test -run Quickstart -update to accept):\n%s", out)
	}
}
