package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs servetune in-process in a fresh working directory.
func runCLI(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"servetune"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestBrokenSpaceExitsTwoAndWritesNothing(t *testing.T) {
	files, err := filepath.Glob("../../space/testdata/bad/*.toml")
	if err != nil || len(files) < 12 {
		t.Fatalf("broken space files: %v %d", err, len(files))
	}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		t.Run(filepath.Base(f), func(t *testing.T) {
			dir := t.TempDir()
			code, out, errText := runCLI(t, dir, "run", abs)
			if code != 2 {
				t.Fatalf("exit code %d, want 2; stderr:\n%s", code, errText)
			}
			if !strings.Contains(errText, abs) || !strings.Contains(errText, "invalid search space") {
				t.Errorf("stderr does not name the file:\n%s", errText)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 0 {
				t.Errorf("files were written: %v", entries)
			}
		})
	}
}

// A knob none of the space's engines takes is refused at load (one some
// of them take is only inactive for the others: space/inactive.go).
func TestUnsupportedKnobNamesEngineAndKnob(t *testing.T) {
	dir := t.TempDir()
	src := `
[study]
name = "x"
[target]
model = "m"
gpu = "H100"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[params.engine]
values = ["vllm"]
[params.deepep_mode]
values = ["auto", "normal"]
[params.enable_dp_attention]
values = [true]
`
	path := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runCLI(t, dir, "run", path)
	if code != 2 || !strings.Contains(errText, `engine vllm does not support knob "enable_dp_attention"`) {
		t.Fatalf("exit %d, stderr:\n%s", code, errText)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files were written: %v", entries)
	}
}

func TestQuickstartPrintsFrontWithServingCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 20-trial study")
	}
	abs, _ := filepath.Abs("../../examples/quickstart.toml")
	golden, _ := filepath.Abs("testdata/quickstart.golden")
	dir := t.TempDir()
	code, out, errText := runCLI(t, dir, "--log-level", "warn", "run", "--n-trials", quickstartTrials, abs)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errText)
	}
	checkQuickstartGolden(t, golden, out)
	for _, want := range []string{"Pareto front (", "Baseline (trial 1)", "Serving commands:", "python3 -m sglang.launch_server --model-path zai-org/GLM-5.2-FP8"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The study is listed, shown and its best reported from the database alone.
	code, out, _ = runCLI(t, dir, "studies")
	if code != 0 || !strings.Contains(out, "quickstart") || !strings.Contains(out, "front of") {
		t.Errorf("studies: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, dir, "show", "--sort", "total_tps", "--csv", "quickstart")
	if code != 0 || !strings.HasPrefix(out, "trial,state,origin,gpu_seconds") {
		t.Errorf("show --csv: exit %d\n%.300s", code, out)
	}
	code, out, _ = runCLI(t, dir, "best", "--json", "quickstart")
	if code != 0 || !strings.Contains(out, `"winners"`) || !strings.Contains(out, `"command": "`) || !strings.Contains(out, `"runner": "sim"`) || !strings.Contains(out, `"recommendations"`) {
		t.Errorf("best --json: exit %d\n%.500s", code, out)
	}
	// Flags after the study name work as well as before it.
	code, out, errText = runCLI(t, dir, "show", "quickstart", "--json")
	if code != 0 || !strings.HasPrefix(out, "[") {
		t.Errorf("flags after the name: exit %d %s\n%.200s", code, errText, out)
	}
	for _, want := range []string{`"runner": "sim"`, `"origin": "prior"`, `"prediction": {`} {
		if !strings.Contains(out, want) {
			t.Errorf("show --json lacks %s", want)
		}
	}
	checkReportCommands(t, dir)
	// A second study warm-starts from the first one's front.
	src, _ := os.ReadFile(abs)
	warm := strings.Replace(strings.Replace(string(src), `name = "quickstart"`, `name = "warm"`, 1), "n_trials = 60", "n_trials = 4", 1)
	if err := os.WriteFile(filepath.Join(dir, "warm.toml"), []byte(warm), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errText = runCLI(t, dir, "--log-level", "warn", "run", "--warm-start", "quickstart", "warm.toml")
	if code != 0 {
		t.Fatalf("warm start: exit %d\n%s", code, errText)
	}
	code, out, _ = runCLI(t, dir, "show", "--json", "warm")
	var warmTrials []struct {
		Origin string `json:"origin"`
	}
	if err := json.Unmarshal([]byte(out), &warmTrials); err != nil || code != 0 {
		t.Fatalf("show --json warm: %v", err)
	}
	if len(warmTrials) < 2 || warmTrials[0].Origin != "baseline" || warmTrials[1].Origin != "warm-start" {
		t.Errorf("warm study trials %+v: want the baseline, then the first study's winners", warmTrials)
	}
	code, _, errText = runCLI(t, dir, "show", "nosuch")
	if code != 2 || !strings.Contains(errText, "no study") {
		t.Errorf("show nosuch: exit %d %s", code, errText)
	}
}

// A lab the flags cannot run as asked (a sampler that cannot serve its
// runs, a bad share or seed, --trace with nowhere to write the trials) is
// a usage error before any simulation starts.
func TestLabRejectsSamplersItCannotRun(t *testing.T) {
	cases := map[string][]string{
		"tpe optimises one objective; this study has 2":                            {"lab", "--mo-samplers", "motpe,tpe"},
		`unknown sampler "nsga2"`:                                                  {"lab", "--samplers", "nsga2"},
		"--confirm 0.7: a share between 0 and 0.5":                                 {"lab", "--confirm", "0.7"},
		"--first-seed 0: seeds are numbered from 1":                                {"lab", "--first-seed", "0"},
		"--first-seed -2: seeds are numbered from 1":                               {"lab", "--first-seed", "-2"},
		"--trace puts each run's trials into the --json file":                      {"lab", "--trace"},
		"--held-out reversed acts on the family's realities: give --perturbed too": {"lab", "--held-out", "reversed"},
		`unknown held-out kind "treshold"; did you mean "threshold"?`:              {"lab", "--perturbed", "--held-out", "treshold"},
	}
	for want, args := range cases {
		code, out, errText := runCLI(t, t.TempDir(), args...)
		if code != 2 || out != "" || !strings.Contains(errText, want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, errText, want)
		}
	}
}

// A sampler that cannot serve the study is refused at load, naming the
// key and what to use instead; it never silently becomes another sampler.
func TestSingleObjectiveSamplerRefusedForTwoObjectives(t *testing.T) {
	src, err := os.ReadFile("../../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tpe.toml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), `sampler = "motpe"`, `sampler = "tpe"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runCLI(t, dir, "run", path)
	if code != 2 || !strings.Contains(errText, "tpe.toml:9: study.sampler:") || !strings.Contains(errText, "use motpe") {
		t.Fatalf("exit %d, stderr:\n%s", code, errText)
	}
}
