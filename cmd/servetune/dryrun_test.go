package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/studies/store"
)

// fakeNode puts a fake nvidia-smi and a fake vllm on PATH: gpus is the
// GPU listing, apps the processes holding GPU memory.
func fakeNode(t *testing.T, gpus, apps string) {
	t.Helper()
	bin := t.TempDir()
	smi := `#!/bin/sh
case "$1" in
--query-gpu=index,uuid,memory.used,memory.total) cat "` + bin + `/gpus.csv" ;;
--query-compute-apps=*) cat "` + bin + `/apps.csv" ;;
--query-gpu=name,driver_version) echo "NVIDIA H100 80GB HBM3, 550.54.15" ;;
*) echo "CUDA Version: 12.4" ;;
esac
`
	files := map[string]string{"nvidia-smi": smi, "vllm": "#!/bin/sh\necho 0.15.1\n", "gpus.csv": gpus, "apps.csv": apps}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("HOME", t.TempDir()) // an empty Hugging Face cache
	for _, k := range []string{"HF_HOME", "HF_HUB_CACHE", "XDG_CACHE_HOME", "HF_HUB_OFFLINE", "CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "NVIDIA_VISIBLE_DEVICES", storageEnv} {
		t.Setenv(k, "")
	}
}

func processSpace(t *testing.T, dir string) string {
	src := strings.Replace(exportSpace, `engine = "vllm"`, "engine = \"vllm\"\nrunner = \"process\"\n[target.engines.vllm]\nversion = \"0.15.1\"", 1)
	return writeSpaceIn(t, dir, src)
}

const eightFree = "0, GPU-0, 3, 81559\n1, GPU-1, 3, 81559\n2, GPU-2, 3, 81559\n3, GPU-3, 3, 81559\n" +
	"4, GPU-4, 3, 81559\n5, GPU-5, 3, 81559\n6, GPU-6, 3, 81559\n7, GPU-7, 3, 81559\n"

// run --dry-run checks the node and exits 0 when every check passes, 5
// when one fails, and writes nothing either way.
func TestRunDryRunChecksTheNode(t *testing.T) {
	for _, tc := range []struct {
		name       string
		apps, args string
		code       int
		says       []string
	}{
		{"all pass", "", "", 0, []string{"ok    engine vllm", "reports 0.15.1, as pinned", "ok    gpus        8 of 8 visible GPUs",
			"warn  checkpoint  Qwen/Qwen3-8B is not in the Hugging Face cache", "Simulated estimate: 6 trials", "Every check passed"}},
		{"a GPU in use", "777, GPU-3, 30000\n", "", exitCheck, []string{"FAIL  gpus        GPU 3 is in use by pid 777", "A check failed"}},
		{"--gpus avoids it", "777, GPU-3, 30000\n", "--workers=2 --gpus=4-7", 0, []string{"4 of 8 visible GPUs to use (4,5,6,7)"}},
		{"--gpus too few", "", "--workers=2 --gpus=0-2", exitCheck, []string{"FAIL  study", "the study would stop (found by simulating it for the estimate): config", "needs 4 GPUs and this worker has 3"}},

		{"storage unreachable", "", "--storage=postgres://servetune:s3cret@127.0.0.1:1/x", exitCheck, []string{"FAIL  storage     postgres://servetune:xxxxx@127.0.0.1:1/x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeNode(t, eightFree, tc.apps)
			dir := t.TempDir()
			space := processSpace(t, dir)
			args := []string{"run", "--dry-run", space}
			args = append(args, strings.Fields(tc.args)...)
			code, out, errText := runCLI(t, dir, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errText)
			}
			for _, s := range tc.says {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			if strings.Contains(out+errText, "s3cret") {
				t.Error("the storage password was printed")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("a dry run wrote %v", entries)
			}
		})
	}
}

// --gpus on one local trial at a time would be ignored: the dry run and
// the run refuse it, exit 2, saying how to get what it asks.
func TestGPUsWithoutWorkersIsRefused(t *testing.T) {
	fakeNode(t, eightFree, "")
	dir := t.TempDir()
	space := processSpace(t, dir)
	for _, args := range [][]string{{"run", "--dry-run", "--gpus=0-1", space}, {"run", "--gpus", "0-1", space}} {
		code, out, errText := runCLI(t, dir, args...)
		want := "--gpus 0-1 needs --workers N > 1"
		if code != exitUsage || !strings.Contains(errText, want) || !strings.Contains(errText, "CUDA_VISIBLE_DEVICES=0,1") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, errText, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 || out != "" {
			t.Errorf("%q wrote %v, printed %q", args, entries, out)
		}
	}
}

func TestWorkerDryRunNeedsSharedStorage(t *testing.T) {
	fakeNode(t, eightFree, "")
	dir := t.TempDir()
	code, _, errText := runCLI(t, dir, "worker", "--dry-run", processSpace(t, dir))
	if code != exitUsage || !strings.Contains(errText, "--storage") {
		t.Errorf("exit %d %s", code, errText)
	}
	code, out, _ := runCLI(t, dir, "worker", "--dry-run", "--storage", "postgres://u@127.0.0.1:1/x", processSpace(t, dir))
	if code != exitCheck || !strings.Contains(out, "FAIL  storage") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// The commands a dry run prints are those the study then runs first.
func TestDryRunShowsTheStudysFirstTrials(t *testing.T) {
	dir := t.TempDir()
	space := writeSpaceIn(t, dir, exportSpace)
	code, out, errText := runCLI(t, dir, "run", "--dry-run", space)
	if code != 0 {
		t.Fatalf("dry run: exit %d %s\n%s", code, errText, out)
	}
	if code, _, errText := runCLI(t, dir, "run", space); code != 0 {
		t.Fatalf("run: exit %d %s", code, errText)
	}
	_, js, _ := runCLI(t, dir, "show", "--json", "exp")
	var trials []store.Trial
	if err := json.Unmarshal([]byte(js), &trials); err != nil || len(trials) < 4 {
		t.Fatalf("%v %d trials", err, len(trials))
	}
	sp, err := loadSpace(t.Context(), space)
	if err != nil {
		t.Fatal(err)
	}
	render := renderCommand(sp)
	for _, tr := range trials[:4] {
		cmd, err := render(tr.Config)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "trial "+strconv.Itoa(tr.Number)+" ("+tr.Origin+"):\n    "+cmd+"\n") {
			t.Errorf("the dry run does not show trial %d (%s) as %s:\n%s", tr.Number, tr.Origin, cmd, out)
		}
	}
}

// A dry run before the first run says it pays the prior's full
// screening; one after it reads the screening the run kept, from a
// scratch copy: it says nothing of screening, shows the same first
// trials and leaves the study's prior file as it was.
func TestDryRunReadsTheKeptScreening(t *testing.T) {
	dir := t.TempDir()
	space := writeSpaceIn(t, dir, exportSpace)
	const note = "no prior screening is kept with this study yet"
	code, before, errText := runCLI(t, dir, "run", "--dry-run", space)
	if code != 0 || !strings.Contains(errText, note) {
		t.Fatalf("first dry run: exit %d, stderr without the screening note:\n%s", code, errText)
	}
	if code, _, errText := runCLI(t, dir, "run", space); code != 0 {
		t.Fatalf("run: exit %d %s", code, errText)
	}
	kept := filepath.Join(dir, "studies", "exp", simprior.File)
	was, err := os.ReadFile(kept)
	if err != nil || len(was) == 0 {
		t.Fatalf("the run kept no prior file: %v", err)
	}
	code, after, errText := runCLI(t, dir, "run", "--dry-run", space)
	if code != 0 || strings.Contains(errText, note) {
		t.Fatalf("dry run after the run: exit %d, screens again:\n%s", code, errText)
	}
	if now, _ := os.ReadFile(kept); string(now) != string(was) {
		t.Error("the dry run changed the study's prior file")
	}
	if first := func(s string) string { return s[strings.Index(s, "trial "):] }; first(after) != first(before) {
		t.Errorf("the dry runs disagree on the first trials:\n%s\n---\n%s", before, after)
	}
}
