package main

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// checkQuickstartGolden holds the quickstart's final report for its seed
// (out, the run's stdout) to its golden file (an absolute path: runCLI
// changes the directory): the contract that refactors of
// the search/objective/studies seam must keep: the same sampler, pruning
// and simulator must give the same trials, front and serving commands,
// byte for byte. TestQuickstartPrintsFrontWithServingCommands runs the
// study once for both its checks and this one (a run is most of the
// package's CPU on a busy machine).
func checkQuickstartGolden(t *testing.T, golden, out string) {
	t.Helper()
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

// quickstartTrials is how much of the quickstart the tests run: the
// example's first 20 trials, not its 60. The prior's proposals, the
// sampler's, a pruned trial, a confirmation, the front, the
// recommendations and their commands all show by then, in a third of the
// time (the full study took 158 s at load 28 on 2 cores, and two of them
// ran the package past its timeout on a busy machine).
const quickstartTrials = "20"
