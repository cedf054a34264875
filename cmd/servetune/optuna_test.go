package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

const optunaSpace = `
[study]
name = "mirrored"
sampler = "random"
n_trials = 3
seed = 3
prior = "none"
[target]
runner = "sim"
model = "zai-org/GLM-5.2-FP8"
gpu = "H200"
gpus = 8
[[objectives]]
metric = "total_tps"
direction = "maximize"
[[objectives]]
metric = "mean_tpot_ms"
direction = "minimize"
[profiles]
run = ["balanced"]
[params.engine]
values = ["sglang"]
[params.tp]
values = [8]
[params.max_running]
values = [64, 128, 256, 512]
[params.mem_fraction]
low = 0.70
high = 0.90
step = 0.05
`

// optunaTrials reads what the Optuna storage holds: number → state.
func optunaTrials(t *testing.T, path string) map[int]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT number, state FROM trials JOIN studies USING (study_id) WHERE study_name = 'mirrored'`)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var n int
		var s string
		rows.Scan(&n, &s)
		if _, dup := out[n]; dup {
			t.Errorf("%s: trial %d twice", path, n)
		}
		out[n] = s
	}
	return out
}

// `run --optuna` keeps the storage current across a resume without
// duplicating a trial, and `export --optuna` writes the same trials.
func TestRunAndExportIntoOptuna(t *testing.T) {
	dir := t.TempDir()
	space := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(space, []byte(optunaSpace), 0o644); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "live.db")
	if code, _, errText := runCLI(t, dir, "--log-level", "warn", "run", "--optuna", "sqlite:///live.db", space); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errText)
	}
	if got := optunaTrials(t, live); len(got) != 3 {
		t.Errorf("after 3 trials the storage holds %v", got)
	}
	if code, _, errText := runCLI(t, dir, "--log-level", "warn", "run", "--n-trials", "5", "--optuna", "sqlite:///live.db", space); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errText)
	}
	got := optunaTrials(t, live)
	if len(got) != 5 {
		t.Errorf("after resuming to 5 trials the storage holds %v", got)
	}
	code, out, errText := runCLI(t, dir, "export", "--optuna", "sqlite:///"+filepath.Join(dir, "exported.db"), "mirrored")
	if code != 0 || !strings.Contains(out, "wrote 5 trials") {
		t.Fatalf("export: exit %d\n%s%s", code, out, errText)
	}
	exported := optunaTrials(t, filepath.Join(dir, "exported.db"))
	for n, s := range got {
		if exported[n] != s || s != "COMPLETE" {
			t.Errorf("trial %d: live %s, exported %s, want COMPLETE in both", n, s, exported[n])
		}
	}
}

func TestOptunaURLWithPasswordIsRefused(t *testing.T) {
	dir := t.TempDir()
	space := filepath.Join(dir, "space.toml")
	os.WriteFile(space, []byte(optunaSpace), 0o644)
	code, _, errText := runCLI(t, dir, "run", "--optuna", "postgresql://tuner:hunter2@db/optuna", space)
	if code != 2 || !strings.Contains(errText, "PGPASSWORD") || strings.Contains(errText, "hunter2") {
		t.Errorf("exit %d, stderr:\n%s", code, errText)
	}
	if _, err := os.Stat(filepath.Join(dir, "studies")); err == nil {
		t.Error("a refused run wrote its study")
	}
	if code, _, errText = runCLI(t, dir, "export", "mirrored"); code != 2 || !strings.Contains(errText, "--optuna") {
		t.Errorf("export without --optuna: exit %d\n%s", code, errText)
	}
}
