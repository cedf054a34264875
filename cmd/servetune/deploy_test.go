package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The Kubernetes manifests parse, and the worker pods run a worker
// command servetune accepts, with the storage URL from the Secret.
func TestKubernetesManifestsParseAndRunAWorker(t *testing.T) {
	kinds := map[string]bool{}
	var job map[string]any
	for _, f := range []string{"postgres.yaml", "secret.yaml", "workers.yaml"} {
		b, err := os.ReadFile(filepath.Join("../../examples/deploy/kubernetes", f))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			kind, _ := doc["kind"].(string)
			kinds[kind] = true
			if kind == "Job" {
				job = doc
			}
		}
	}
	for _, k := range []string{"Service", "StatefulSet", "Secret", "Job"} {
		if !kinds[k] {
			t.Errorf("no %s among the manifests", k)
		}
	}
	c := dig(job, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	args := c["args"].([]any)
	if args[0] != "worker" {
		t.Errorf("worker pods run %v, want servetune worker", args)
	}
	checkWorkerFlags(t, args)
	if gpus := dig(c, "resources", "limits", "nvidia.com/gpu"); gpus == nil {
		t.Error("worker pods request no nvidia.com/gpu")
	}
	env := map[string]bool{}
	for _, e := range c["env"].([]any) {
		env[e.(map[string]any)["name"].(string)] = true
	}
	if !env[storageEnv] || !env["PGPASSWORD"] {
		t.Errorf("worker env %v, want %s and PGPASSWORD from the Secret", env, storageEnv)
	}
}

// The sbatch script is valid bash and starts one worker per node with
// flags servetune knows.
func TestSlurmScriptStartsAWorkerPerNode(t *testing.T) {
	path := "../../examples/deploy/slurm/servetune.sbatch"
	if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"#SBATCH --ntasks-per-node=1", "#SBATCH --gres=gpu:", "srun", "servetune worker", "SERVETUNE_STORAGE"} {
		if !strings.Contains(s, want) {
			t.Errorf("sbatch script lacks %q", want)
		}
	}
	var args []any
	for _, f := range strings.Fields(s[strings.LastIndex(s, "servetune worker "):]) {
		if strings.HasPrefix(f, "--") {
			args = append(args, f)
		}
	}
	checkWorkerFlags(t, append([]any{"worker"}, args...))
}

// checkWorkerFlags checks every --flag in args is one the worker command
// defines.
func checkWorkerFlags(t *testing.T, args []any) {
	t.Helper()
	known := map[string]bool{}
	for _, f := range workerCommand(nil).Flags {
		for _, n := range f.Names() {
			known["--"+n] = true
		}
	}
	for _, a := range args {
		s, _ := a.(string)
		if strings.HasPrefix(s, "--") && !known[s] {
			t.Errorf("servetune worker has no flag %s", s)
		}
	}
}

func dig(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}
