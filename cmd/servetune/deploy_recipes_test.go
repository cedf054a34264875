package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/servetune/servetune/studies/export/k8stest"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct{ op, args string }

func dockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	line := ""
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if line == "" && (l == "" || strings.HasPrefix(l, "#")) {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			line += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		line += l
		op, args, _ := strings.Cut(line, " ")
		out = append(out, instruction{strings.ToUpper(op), strings.TrimSpace(args)})
		line = ""
	}
	return out
}

// Each worker image builds servetune from this repository and layers it
// onto the engine's official image, with servetune as the entrypoint
// running a worker.
func TestWorkerDockerfilesLayerServetuneOntoTheEngineImage(t *testing.T) {
	goMod, _ := os.ReadFile("../../go.mod")
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(goMod)[1]
	for engine, repo := range map[string]string{"vllm": "vllm/vllm-openai:", "sglang": "lmsysorg/sglang:", "trtllm": "nvcr.io/nvidia/tensorrt-llm/release:"} {
		t.Run(engine, func(t *testing.T) {
			ins := dockerfile(t, filepath.Join("../../examples/deploy/docker", engine+".Dockerfile"))
			args := map[string]string{}
			var froms []string
			var built, copied, entry, cmd string
			for _, in := range ins {
				switch in.op {
				case "ARG":
					if len(froms) == 0 {
						k, v, _ := strings.Cut(in.args, "=")
						args[k] = v
					}
				case "FROM":
					froms = append(froms, in.args)
				case "RUN":
					if m := regexp.MustCompile(`go build .*-o (\S+) (\S+)$`).FindStringSubmatch(in.args); m != nil {
						built = m[1]
						if _, err := os.Stat(filepath.Join("../..", m[2])); err != nil {
							t.Errorf("builds %s: %v", m[2], err)
						}
					}
				case "COPY":
					if src, ok := strings.CutPrefix(in.args, "--from=build "); ok {
						f := strings.Fields(src)
						if f[0] != built {
							t.Errorf("copies %s, the build wrote %s", f[0], built)
						}
						copied = f[1]
					}
				case "ENTRYPOINT":
					entry = in.args
				case "CMD":
					cmd = in.args
				}
			}
			if len(froms) != 2 || !strings.HasPrefix(froms[0], "golang:"+string(goVersion)) || !strings.HasSuffix(froms[0], " AS build") {
				t.Fatalf("FROM lines %q: want golang:%s AS build, then the engine image", froms, goVersion)
			}
			name := strings.TrimSuffix(strings.TrimPrefix(froms[1], "${"), "}")
			if !strings.HasPrefix(args[name], repo) {
				t.Errorf("the engine image is %s = %q, want %s...", froms[1], args[name], repo)
			}
			var ep, cm []string
			if json.Unmarshal([]byte(entry), &ep) != nil || json.Unmarshal([]byte(cmd), &cm) != nil {
				t.Fatalf("ENTRYPOINT %s and CMD %s must be JSON (exec form: signals reach servetune)", entry, cmd)
			}
			if !slices.Equal(ep, []string{copied}) || len(cm) < 2 || cm[0] != "worker" {
				t.Errorf("ENTRYPOINT %q CMD %q, want [%s] and a worker", ep, cm, copied)
			}
		})
	}
}

// The Kubernetes recipes hold as the API's own types: the worker pods
// mount /dev/shm in memory and a shared model cache, take HF_TOKEN and
// the storage from Secrets, and check the node with --dry-run first; the
// storage URL names the PostgreSQL Service the recipe defines.
func TestKubernetesRecipesAreValidAndCarryShmCacheAndToken(t *testing.T) {
	var all k8stest.Objects
	for _, f := range []string{"postgres.yaml", "secret.yaml", "workers.yaml"} {
		b, err := os.ReadFile(filepath.Join("../../examples/deploy/kubernetes", f))
		if err != nil {
			t.Fatal(err)
		}
		o, err := k8stest.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		all.Jobs, all.Claims, all.Secrets = append(all.Jobs, o.Jobs...), append(all.Claims, o.Claims...), append(all.Secrets, o.Secrets...)
		all.Services = append(all.Services, o.Services...)
	}
	if len(all.Jobs) != 1 || len(all.Secrets) != 1 || len(all.Services) != 1 {
		t.Fatalf("want one Job, Secret and Service: %d %d %d", len(all.Jobs), len(all.Secrets), len(all.Services))
	}
	u, err := url.Parse(all.Secrets[0].StringData["url"])
	if err != nil || u.Hostname() != all.Services[0].Name {
		t.Errorf("the storage URL %v does not reach the Service %s", u, all.Services[0].Name)
	}
	pod := all.Jobs[0].Spec.Template.Spec
	if pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds < 30 {
		t.Error("workers get no time to stop their engines")
	}
	if len(pod.InitContainers) != 1 || !slices.Contains(pod.InitContainers[0].Args, "--dry-run") || pod.InitContainers[0].Args[0] != "worker" {
		t.Errorf("init containers %+v: want servetune worker --dry-run", pod.InitContainers)
	}
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		mounts := map[string]string{}
		for _, m := range c.VolumeMounts {
			mounts[m.MountPath] = m.Name
		}
		if v := vols[mounts["/dev/shm"]]; v.EmptyDir == nil || v.EmptyDir.Medium != corev1.StorageMediumMemory {
			t.Errorf("%s: /dev/shm is %+v", c.Name, v)
		}
		v := vols[mounts["/root/.cache/huggingface"]]
		if v.PersistentVolumeClaim == nil || !slices.ContainsFunc(all.Claims, func(c corev1.PersistentVolumeClaim) bool {
			return c.Name == v.PersistentVolumeClaim.ClaimName && slices.Contains(c.Spec.AccessModes, corev1.ReadWriteMany)
		}) {
			t.Errorf("%s: the model cache is %+v, want a ReadWriteMany claim the recipe defines", c.Name, v)
		}
		env := map[string]corev1.EnvVar{}
		for _, e := range c.Env {
			env[e.Name] = e
		}
		tok := env["HF_TOKEN"]
		if tok.ValueFrom == nil || tok.ValueFrom.SecretKeyRef == nil || tok.Value != "" {
			t.Errorf("%s: HF_TOKEN %+v, want it from a Secret", c.Name, tok)
		}
		if s := env[storageEnv]; s.ValueFrom == nil || s.ValueFrom.SecretKeyRef.Name != all.Secrets[0].Name {
			t.Errorf("%s: %s %+v", c.Name, storageEnv, s)
		}
		if q := c.Resources.Limits["nvidia.com/gpu"]; q.Value() < 1 {
			t.Errorf("%s requests no GPU", c.Name)
		}
	}
	checkWorkerFlags(t, toAny(pod.InitContainers[0].Args))
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
