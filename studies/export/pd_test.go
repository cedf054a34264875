package export

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/export/k8stest"
)

func pdManifest(t *testing.T, engine string, cfg space.Config) ([]Plan, k8stest.Objects) {
	t.Helper()
	base := space.Config{"disaggregation": "pd", "prefill_instances": int64(2), "decode_instances": int64(1)}
	for k, v := range cfg {
		base[k] = v
	}
	plans, err := NewPD(study(engine, 8, nil), complete(base), Options{})
	if err != nil {
		t.Fatal(err)
	}
	y, err := KubernetesPD(plans)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := k8stest.Decode(y)
	if err != nil {
		t.Fatalf("manifest is not valid Kubernetes: %v\n%s", err, y)
	}
	return plans, objs
}

// A disaggregated trial exports as one Deployment and Service per
// process: each server with its side's GPUs and the ports its peers
// dial, the router without GPUs dialling the servers' Services.
func TestKubernetesPDDeploysEveryRole(t *testing.T) {
	plans, objs := pdManifest(t, "sglang", space.Config{"prefill_tp": int64(2), "decode_tp": int64(4)})
	names := []string{"my-study-trial-7-prefill-0", "my-study-trial-7-prefill-1", "my-study-trial-7-decode-0", "my-study-trial-7-router"}
	if len(objs.Deployments) != 4 || len(objs.Services) != 4 || len(objs.Claims) != 3 {
		t.Fatalf("got %d deployments, %d services, %d claims", len(objs.Deployments), len(objs.Services), len(objs.Claims))
	}
	wantGPUs := []int64{2, 2, 4, 0}
	for i, d := range objs.Deployments {
		if d.Name != names[i] {
			t.Fatalf("deployment %d is %s, want %s", i, d.Name, names[i])
		}
		c := d.Spec.Template.Spec.Containers[0]
		got := c.Resources.Limits["nvidia.com/gpu"]
		if n, _ := got.AsInt64(); n != wantGPUs[i] {
			t.Errorf("%s: %d GPUs, want %d", d.Name, n, wantGPUs[i])
		}
		if !slices.Contains(c.Args, "--host=0.0.0.0") && !slices.Contains(c.Args, "0.0.0.0") {
			t.Errorf("%s does not bind every interface: %v", d.Name, c.Args)
		}
	}
	router := strings.Join(objs.Deployments[3].Spec.Template.Spec.Containers[0].Args, " ")
	if !strings.Contains(router, "--prefill http://my-study-trial-7-prefill-1:30002 8999 --decode http://my-study-trial-7-decode-0:30003") {
		t.Fatalf("router does not dial the Services: %s", router)
	}
	// The prefill Service carries the bootstrap port the decode server dials.
	if ps := objs.Services[0].Spec.Ports; len(ps) != 2 || ps[1].Port != 8998 {
		t.Fatalf("prefill-0 service ports %+v", ps)
	}
	if plans[3].HFToken || plans[3].Health != "/health" {
		t.Fatalf("router plan %+v", plans[3])
	}
}

// vLLM servers announce their pod's address for NIXL's side channel.
func TestKubernetesPDAnnouncesThePodAddress(t *testing.T) {
	_, objs := pdManifest(t, "vllm", nil)
	env := objs.Deployments[0].Spec.Template.Spec.Containers[0].Env
	i := slices.IndexFunc(env, func(e corev1.EnvVar) bool { return e.Name == "VLLM_NIXL_SIDE_CHANNEL_HOST" })
	if i < 0 || env[i].ValueFrom == nil || env[i].ValueFrom.FieldRef == nil || env[i].ValueFrom.FieldRef.FieldPath != "status.podIP" {
		t.Fatalf("env %+v", env)
	}
}
