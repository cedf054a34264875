package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/servetune/servetune/studies/export/k8stest"
	"github.com/servetune/servetune/studies/store"
)

const exportSpace = `
[study]
name = "exp"
n_trials = 6
seed = 5

[target]
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 8
engine = "vllm"

[[objectives]]
metric = "total_tps"
direction = "maximize"

[profiles]
run = ["chat"]

[profiles.custom.chat]
input_len = 1024
output_len = 128
num_prompts = 100
request_rate = 8

[params.tp]
values = [1, 2, 4]
[params.mem_fraction]
values = [0.02, 0.9]
`

// best --export wires studies/export: the trial exported is the one asked
// for, a Kubernetes manifest requests its own GPUs, and a trial that did
// not complete is refused (exit 2, nothing printed) unless --force.
func TestBestExportsTheTrialAskedForAndRefusesAFailedOne(t *testing.T) {
	dir := exportStudy(t)
	code, out, errText := runCLI(t, dir, "show", "--json", "exp")
	var trials []store.Trial
	if err := json.Unmarshal([]byte(out), &trials); code != 0 || err != nil {
		t.Fatalf("show: exit %d %v %s", code, err, errText)
	}
	var done, bad *store.Trial
	for i, tr := range trials {
		switch {
		case tr.State == store.Complete && done == nil:
			done = &trials[i]
		case tr.State != store.Complete && bad == nil:
			bad = &trials[i]
		}
	}
	if done == nil || bad == nil {
		t.Fatalf("want a complete and a failed trial among %+v", trials)
	}
	code, out, errText = runCLI(t, dir, "best", "exp", "--export", "k8s", "--trial", strconv.Itoa(done.Number))
	objs, err := k8stest.Decode([]byte(out))
	if code != 0 || err != nil || len(objs.Deployments) != 1 {
		t.Fatalf("exit %d %v %s\n%s", code, err, errText, out)
	}
	c := objs.Deployments[0].Spec.Template.Spec.Containers[0]
	tp, _ := done.Config.Int("tp")
	if q := c.Resources.Limits["nvidia.com/gpu"]; q.Value() != tp {
		t.Errorf("trial %d (tp=%d) requests %s GPUs", done.Number, tp, q.String())
	}
	code, out, errText = runCLI(t, dir, "best", "exp", "--export", "docker", "--trial", strconv.Itoa(bad.Number))
	if code != 2 || out != "" || !strings.Contains(errText, "--force") {
		t.Errorf("a %s trial: exit %d, stdout %q, stderr %s", bad.State, code, out, errText)
	}
	code, out, errText = runCLI(t, dir, "best", "exp", "--export", "docker", "--trial", strconv.Itoa(bad.Number), "--force")
	if code != 0 || !strings.Contains(out, "docker run") {
		t.Errorf("--force: exit %d %s\n%s", code, errText, out)
	}
}

// exportStudy runs the small simulated study "exp" in a new directory.
func exportStudy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if code, _, errText := runCLI(t, dir, "run", writeSpaceIn(t, dir, exportSpace)); code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, errText)
	}
	return dir
}

// A sort key that names nothing is refused, not ignored.
func TestShowSortRefusesAnUnknownKey(t *testing.T) {
	dir := exportStudy(t)
	code, out, errText := runCLI(t, dir, "show", "exp", "--sort", "totl_tps")
	if code != exitUsage || out != "" || !strings.Contains(errText, `did you mean "total_tps"?`) {
		t.Errorf("--sort totl_tps: exit %d stdout %q stderr %s", code, out, errText)
	}
	code, out, errText = runCLI(t, dir, "show", "exp", "--sort", "chat/total_tps", "--csv")
	if code != 0 || !strings.HasPrefix(out, "trial,") {
		t.Errorf("--sort chat/total_tps: exit %d %s", code, errText)
	}
}
