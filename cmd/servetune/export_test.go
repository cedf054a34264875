package main

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

func trtllmDeployment(t *testing.T) deployment {
	t.Helper()
	cmd, err := engines.Render(space.Config{"engine": "trtllm", "tp": int64(8), "max_running": int64(256), "kv_cache_dtype": "fp8"},
		space.Target{Model: "nvidia/DeepSeek-R1-FP4", GPUs: 8, GPU: "B200"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmd.Files) == 0 {
		t.Fatalf("want a TRT-LLM command with a generated file: %+v", cmd)
	}
	cmd.Env = map[string]string{"NCCL_DEBUG": "WARN"}
	return deployment{Study: "My_Study", Trial: 7, Engine: "trtllm", Version: "1.2.1", GPUs: 8, Cmd: cmd}
}

func TestK8sManifestParsesAndHoldsArgvEnvGPUAndFiles(t *testing.T) {
	d := trtllmDeployment(t)
	y, err := k8sManifest(d)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]map[string]any{}
	dec := yaml.NewDecoder(bytes.NewReader(y))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("manifest does not parse: %v\n%s", err, y)
		}
		docs[doc["kind"].(string)] = doc
	}
	if len(docs) != 3 || docs["Deployment"] == nil || docs["Service"] == nil || docs["ConfigMap"] == nil {
		t.Fatalf("want Deployment, Service, ConfigMap; got %v", slices.Collect(func(yield func(string) bool) {
			for k := range docs {
				yield(k)
			}
		}))
	}
	var dep struct {
		Metadata struct{ Name string }
		Spec     struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Image         string
						WorkingDir    string `yaml:"workingDir"`
						Command, Args []string
						Env           []struct{ Name, Value string }
						Resources     struct {
							Limits map[string]int
						}
					}
				}
			}
		}
	}
	b, _ := yaml.Marshal(docs["Deployment"])
	if err := yaml.Unmarshal(b, &dep); err != nil {
		t.Fatal(err)
	}
	if dep.Metadata.Name != "my-study-trial-7" {
		t.Errorf("name %q is not DNS-1123", dep.Metadata.Name)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	argv := append(c.Command, c.Args...)
	if !slices.Equal(argv[:len(d.Cmd.Argv)], d.Cmd.Argv) || !slices.Contains(argv, "--port=8000") {
		t.Errorf("argv %q, want %q then the listen flags", argv, d.Cmd.Argv)
	}
	if c.Image != "nvcr.io/nvidia/tensorrt-llm/release:1.2.1" || c.Resources.Limits["nvidia.com/gpu"] != 8 || c.WorkingDir != "/servetune" {
		t.Errorf("container %+v", c)
	}
	if len(c.Env) != 1 || c.Env[0].Name != "NCCL_DEBUG" || c.Env[0].Value != "WARN" {
		t.Errorf("env %+v", c.Env)
	}
	data := docs["ConfigMap"]["data"].(map[string]any)
	for name, content := range d.Cmd.Files {
		if data[name] != content {
			t.Errorf("ConfigMap %s = %q, want %q", name, data[name], content)
		}
	}
}

func TestDockerRunUsesTheOfficialImageAndTheExactArgv(t *testing.T) {
	d := trtllmDeployment(t)
	out := dockerRun(d)
	last := ""
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "docker run") {
			last = l
		}
	}
	want := "--entrypoint " + d.Cmd.Argv[0] + " nvcr.io/nvidia/tensorrt-llm/release:1.2.1 " + strings.Join(d.Cmd.Argv[1:], " ")
	if !strings.Contains(last, want) || !strings.Contains(last, "--gpus all") || !strings.Contains(last, "-e NCCL_DEBUG=WARN") {
		t.Errorf("docker line\n%s\nwant it to hold\n%s", last, want)
	}
	for name := range d.Cmd.Files {
		if !strings.Contains(out, "cat > my-study-trial-7/"+name) {
			t.Errorf("file %s is not written:\n%s", name, out)
		}
	}
	d.GPUs = 0
	if strings.Contains(dockerRun(d), "--gpus") {
		t.Error("a CPU deployment requests GPUs")
	}
}

func TestImages(t *testing.T) {
	for _, tc := range []struct{ engine, version, want string }{
		{"vllm", "", "vllm/vllm-openai:latest"},
		{"vllm", "0.11.0", "vllm/vllm-openai:v0.11.0"},
		{"sglang", "0.5.2", "lmsysorg/sglang:0.5.2"},
		{"trtllm", "", "nvcr.io/nvidia/tensorrt-llm/release:latest"},
		{"ollama", "0.5.7", "ollama/ollama:0.5.7"},
	} {
		if got := image(tc.engine, tc.version); got != tc.want {
			t.Errorf("image(%s, %q) = %s, want %s", tc.engine, tc.version, got, tc.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"--tp=8": "--tp=8", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$X": "'$X'"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
