package export

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/export/k8stest"
)

func manifest(t *testing.T, sp *space.Space, cfg space.Config, o Options) (Plan, k8stest.Objects) {
	t.Helper()
	p, err := New(sp, complete(cfg), o)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Kubernetes(p)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := k8stest.Decode(y)
	if err != nil {
		t.Fatalf("manifest is not valid Kubernetes: %v\n%s", err, y)
	}
	if len(objs.Deployments) != 1 || len(objs.Services) != 1 || len(objs.Claims) != 1 {
		t.Fatalf("want one Deployment, Service and cache claim; got %+v", objs)
	}
	return p, objs
}

// Every engine's Deployment deploys as it ran: its image, the trial's own
// GPUs, probes on its health endpoint, shared memory, the model cache and
// the token from a Secret.
func TestKubernetesDeploysEachEngine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sp     *space.Space
		cfg    space.Config
		opt    Options
		gpus   int64
		health string
	}{
		{"vllm tp=2 of 8", study("vllm", 8, nil), space.Config{"tp": int64(2)}, Options{}, 2, "/health"},
		{"sglang tp=4", study("sglang", 8, nil), space.Config{"tp": int64(4)}, Options{}, 4, "/health"},
		{"trtllm tp=8 with its options file", study("trtllm", 8, nil), space.Config{"tp": int64(8), "kv_cache_dtype": "fp8"}, Options{}, 8, "/health"},
		{"ollama on CPU", &space.Space{Study: space.Study{Name: "o"}, Target: space.Target{Engine: "ollama", Model: "/m/q.gguf"}}, space.Config{}, Options{}, 0, "/api/version"},
		{"declared", study("llama-server", 1, llamaServer()), space.Config{}, Options{Image: "ghcr.io/ggml-org/llama.cpp:server-cuda"}, 1, "/health"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, objs := manifest(t, tc.sp, tc.cfg, tc.opt)
			d := objs.Deployments[0]
			if d.Name != p.Name || d.Spec.Strategy.Type != "Recreate" || *d.Spec.Replicas != 1 {
				t.Errorf("deployment %s strategy %q", d.Name, d.Spec.Strategy.Type)
			}
			if d.Spec.Selector.MatchLabels["app"] != d.Spec.Template.Labels["app"] {
				t.Error("the selector does not select the pods")
			}
			pod := d.Spec.Template.Spec
			c := pod.Containers[0]
			if c.Image != p.Image || !slices.Equal(append(c.Command, c.Args...), p.Argv) {
				t.Errorf("container %s %q, want %s %q", c.Image, append(c.Command, c.Args...), p.Image, p.Argv)
			}
			checkGPUs(t, c, tc.gpus)
			checkProbes(t, c, tc.health, p.Port)
			checkVolumes(t, pod, c, p.Cache)
			checkToken(t, c, p.HFToken)
			s := objs.Services[0]
			if s.Spec.Selector["app"] != p.Name || s.Spec.Ports[0].Port != int32(p.Port) || s.Spec.Ports[0].TargetPort.String() != "http" {
				t.Errorf("service %+v", s.Spec)
			}
			if len(p.Files) > 0 {
				cm := objs.ConfigMaps[0]
				for f, content := range p.Files {
					if cm.Data[f] != content {
						t.Errorf("ConfigMap %s = %q, want %q", f, cm.Data[f], content)
					}
				}
				if c.WorkingDir != "/servetune" {
					t.Errorf("working dir %q: the argv names its files relative to /servetune", c.WorkingDir)
				}
			}
		})
	}
}

func checkGPUs(t *testing.T, c corev1.Container, want int64) {
	t.Helper()
	for _, rl := range []corev1.ResourceList{c.Resources.Limits, c.Resources.Requests} {
		q, ok := rl["nvidia.com/gpu"]
		if want == 0 && ok {
			t.Errorf("a CPU trial requests %s GPUs", q.String())
		}
		if want > 0 && q.Value() != want {
			t.Errorf("requests %s GPUs, the trial ran on %d", q.String(), want)
		}
	}
}

func checkProbes(t *testing.T, c corev1.Container, health string, port int) {
	t.Helper()
	if len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != int32(port) {
		t.Fatalf("ports %+v, want http on %d", c.Ports, port)
	}
	for name, pr := range map[string]*corev1.Probe{"startup": c.StartupProbe, "readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if pr == nil || pr.HTTPGet == nil {
			t.Errorf("%s probe %+v, want an HTTP GET", name, pr)
			continue
		}
		if pr.HTTPGet.Path != health || pr.HTTPGet.Port.String() != "http" {
			t.Errorf("%s probe GETs %s on %s, want %s on http", name, pr.HTTPGet.Path, pr.HTTPGet.Port.String(), health)
		}
	}
	s := c.StartupProbe
	if s == nil {
		return
	}
	budget := time.Duration(s.PeriodSeconds*s.FailureThreshold) * time.Second
	if budget < 10*time.Minute {
		t.Errorf("startup probe gives the engine %v to load", budget)
	}
}

func checkVolumes(t *testing.T, pod corev1.PodSpec, c corev1.Container, cache string) {
	t.Helper()
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	mounted := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounted[m.MountPath] = m.Name
	}
	if v := vols[mounted["/dev/shm"]]; v.EmptyDir == nil || v.EmptyDir.Medium != corev1.StorageMediumMemory {
		t.Errorf("/dev/shm is %+v, want a memory emptyDir", v)
	}
	if v := vols[mounted[cache]]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != CacheClaim {
		t.Errorf("the model cache %s is %+v, want claim %s", cache, v, CacheClaim)
	}
}

func checkToken(t *testing.T, c corev1.Container, want bool) {
	t.Helper()
	var tok *corev1.EnvVar
	for i, e := range c.Env {
		if e.Name == "HF_TOKEN" {
			tok = &c.Env[i]
		}
	}
	if !want {
		if tok != nil {
			t.Errorf("HF_TOKEN for an engine that does not download from Hugging Face")
		}
		return
	}
	if tok == nil || tok.Value != "" || tok.ValueFrom == nil || tok.ValueFrom.SecretKeyRef == nil {
		t.Fatalf("HF_TOKEN %+v, want it from a Secret", tok)
	}
	ref := tok.ValueFrom.SecretKeyRef
	if ref.Name != TokenSecret || ref.Key != TokenKey || ref.Optional == nil || !*ref.Optional {
		t.Errorf("HF_TOKEN from %+v, want optional %s/%s", ref, TokenSecret, TokenKey)
	}
}

// A declared engine whose readiness Kubernetes cannot express is probed
// on its port.
func TestKubernetesProbesTheTCPPortWithoutAPlainHealthPath(t *testing.T) {
	decl := llamaServer()
	d := decl["llama-server"]
	d.Ready = space.ReadyDecl{Log: "server is listening"}
	decl["llama-server"] = d
	_, objs := manifest(t, study("llama-server", 1, decl), space.Config{}, Options{Image: "x/y:1"})
	c := objs.Deployments[0].Spec.Template.Spec.Containers[0]
	for _, pr := range []*corev1.Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
		if pr.TCPSocket == nil || pr.HTTPGet != nil || pr.TCPSocket.Port.String() != "http" {
			t.Errorf("probe %+v, want a TCP probe of http", pr.ProbeHandler)
		}
	}
}
