package optunadb

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// systemPython is Debian's interpreter (command -p: the system PATH, not a
// pyenv shim first on the user's), where python3-optuna is installed.
// Without Optuna 3.1 there the test skips, but fails in CI.
func systemPython(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "command -p -v python3").Output()
	py := strings.TrimSpace(string(out))
	if err == nil && py != "" {
		var v []byte
		v, err = exec.Command(py, "-c", "import optuna; print(optuna.__version__)").Output()
		if err == nil && !strings.HasPrefix(string(v), "3.1") {
			t.Logf("system Optuna is %s, not 3.1", strings.TrimSpace(string(v)))
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Debian's python3-optuna is required in CI (apt-get install python3-optuna): %v", err)
		}
		t.Skipf("no system python3 with optuna (apt-get install python3-optuna): %v", err)
	}
	return py
}

// loadScript prints what Optuna itself sees in the storage.
const loadScript = `
import json, sys, warnings
warnings.simplefilter("ignore")
import optuna
optuna.logging.set_verbosity(optuna.logging.ERROR)
s = optuna.load_study(study_name=sys.argv[2], storage=sys.argv[1])
print(json.dumps({
  "directions": [d.name for d in s.directions],
  "user_attrs": s.user_attrs,
  "trials": [{"number": t.number, "state": t.state.name, "params": t.params, "values": t.values,
              "user_attrs": t.user_attrs, "intermediate": {str(k): v for k, v in t.intermediate_values.items()},
              "system_attrs": t.system_attrs, "complete": t.datetime_complete is not None, "start": str(t.datetime_start),
              "distributions": {k: type(d).__name__ for k, d in t.distributions.items()}} for t in s.trials],
  "best": sorted(t.number for t in s.best_trials),
}))
`

type optunaView struct {
	Directions []string       `json:"directions"`
	UserAttrs  map[string]any `json:"user_attrs"`
	Trials     []struct {
		Number        int                `json:"number"`
		State         string             `json:"state"`
		Params        map[string]any     `json:"params"`
		Values        []float64          `json:"values"`
		UserAttrs     map[string]any     `json:"user_attrs"`
		Intermediate  map[string]float64 `json:"intermediate"`
		SystemAttrs   map[string]any     `json:"system_attrs"`
		Complete      bool               `json:"complete"`
		Start         string             `json:"start"`
		Distributions map[string]string  `json:"distributions"`
	} `json:"trials"`
	Best []int `json:"best"`
}

func loadWithOptuna(t *testing.T, py, url, study string) optunaView {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(context.Background(), py, "-c", loadScript, url, study)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("optuna.load_study: %v\n%s", err, stderr.String())
	}
	var v optunaView
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return v
}

// optunaCLI runs Optuna's own command line on the storage.
func optunaCLI(t *testing.T, py string, args ...string) []map[string]any {
	t.Helper()
	var stderr bytes.Buffer
	script := "import sys; from optuna.cli import main; sys.argv[0] = 'optuna'; sys.exit(main())"
	cmd := exec.Command(py, append([]string{"-W", "ignore", "-c", script}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("optuna %v: %v\n%s", args, err, stderr.String())
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("optuna %v: %v: %s", args, err, out)
	}
	return rows
}
