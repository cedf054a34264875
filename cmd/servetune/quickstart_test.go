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
// serving commands, byte for byte. It runs the example's first 20 trials
// (--n-trials 20), not its 60: the prior's proposals, the sampler's,
// a pruned trial, a confirmation, the front, the recommendations and
// their commands all show by then, in a third of the time (the full study
// took 158 s at load 28 on 2 cores, and two of them ran the package past
// its timeout on a busy machine).
func TestQuickstartReportIsStable(t *testing.T) {
	example, err := filepath.Abs("../../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs("testdata/quickstart.golden")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI(t, t.TempDir(), "run", "--n-trials", quickstartTrials, example)
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

// quickstartTrials is how much of the quickstart the tests run: enough
// for every part of its report, not the whole study.
const quickstartTrials = "20"
