package export

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/export/k8stest"
)

// twoNodeStudy is SGLang on two 8-GPU nodes, as the PD example's.
func twoNodeStudy() *space.Space {
	sp := study("sglang", 16, nil)
	sp.Target.GPUsPerNode, sp.Target.Nodes = 8, []string{"node0", "node1"}
	return sp
}

func decodePD(t *testing.T, sp *space.Space, cfg space.Config, o Options) ([]Plan, k8stest.Objects) {
	t.Helper()
	plans, err := NewPD(sp, complete(cfg), o)
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
	if strings.Contains(string(y), ":latest") {
		t.Errorf("an image is not pinned:\n%s", y)
	}
	return plans, objs
}

func container(d appsv1.Deployment) corev1.Container { return d.Spec.Template.Spec.Containers[0] }

// claimOf is the claim a deployment mounts its cache from, "" if none.
func claimOf(d appsv1.Deployment) string {
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			return v.PersistentVolumeClaim.ClaimName
		}
	}
	return ""
}

// The goal: a two-node PD trial (a TP8 prefill server on one
// node, a TP8 decode server on the other, the KV over the network)
// exports as a manifest that decodes strictly, with a cache claim per
// server, pinned images, RDMA NICs for the servers, and a router with
// neither cache nor shm nor GPUs.
func TestKubernetesPDTwoNodesDeploysAsIs(t *testing.T) {
	cfg := space.Config{"disaggregation": "pd", "prefill_instances": int64(1), "decode_instances": int64(1),
		"prefill_tp": int64(8), "decode_tp": int64(8)}
	_, objs := decodePD(t, twoNodeStudy(), cfg, Options{})
	if len(objs.Claims) != 2 {
		t.Fatalf("%d claims, want one per server", len(objs.Claims))
	}
	for i, want := range []string{"servetune-model-cache-prefill-0", "servetune-model-cache-decode-0"} {
		if objs.Claims[i].Name != want || objs.Claims[i].Spec.AccessModes[0] != corev1.ReadWriteOnce {
			t.Errorf("claim %d: %s %v, want %s ReadWriteOnce", i, objs.Claims[i].Name, objs.Claims[i].Spec.AccessModes, want)
		}
		d := objs.Deployments[i]
		if got := claimOf(d); got != want {
			t.Errorf("%s mounts claim %q, want %q", d.Name, got, want)
		}
		if d.Spec.Template.Spec.Affinity != nil {
			t.Errorf("%s is alone on its node, yet has affinity %+v", d.Name, d.Spec.Template.Spec.Affinity)
		}
		c := container(d)
		n := c.Resources.Limits[DefaultRDMAResource]
		if v, _ := n.AsInt64(); v != 1 || c.SecurityContext == nil || len(c.SecurityContext.Capabilities.Add) != 1 {
			t.Errorf("%s moves KV across nodes without an RDMA NIC and IPC_LOCK: %+v %+v", d.Name, c.Resources, c.SecurityContext)
		}
		if !strings.HasSuffix(c.Image, ":v0.5.14") {
			t.Errorf("%s image %s, want SGLang's rendered-for release", d.Name, c.Image)
		}
	}
	router := objs.Deployments[2]
	if rs := router.Spec.Template.Spec; len(rs.Volumes) != 0 || len(container(router).VolumeMounts) != 0 || len(container(router).Resources.Limits) != 0 {
		t.Errorf("router has volumes %+v, resources %+v", rs.Volumes, container(router).Resources)
	}
}

// On one node every server's KV moves over NVLink: their pods require
// one another's node, and none asks for an RDMA NIC.
func TestKubernetesPDOneNodeKeepsThePairTogether(t *testing.T) {
	cfg := space.Config{"disaggregation": "pd", "prefill_instances": int64(2), "decode_instances": int64(1),
		"prefill_tp": int64(2), "decode_tp": int64(4)}
	_, objs := decodePD(t, study("sglang", 8, nil), cfg, Options{})
	group := ""
	for _, d := range objs.Deployments[:3] {
		a := d.Spec.Template.Spec.Affinity
		if a == nil || a.PodAffinity == nil || len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
			t.Fatalf("%s has no required pod affinity: %+v", d.Name, a)
		}
		term := a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
		g := term.LabelSelector.MatchLabels[NodeGroupLabel]
		if term.TopologyKey != "kubernetes.io/hostname" || g == "" || d.Spec.Template.Labels[NodeGroupLabel] != g {
			t.Fatalf("%s: term %+v, labels %v", d.Name, term, d.Spec.Template.Labels)
		}
		if group != "" && g != group {
			t.Errorf("%s in group %s, the others in %s", d.Name, g, group)
		}
		group = g
		if _, ok := container(d).Resources.Limits[DefaultRDMAResource]; ok {
			t.Errorf("%s asks for RDMA on one node", d.Name)
		}
	}
	if objs.Deployments[3].Spec.Template.Spec.Affinity != nil {
		t.Errorf("the router is pinned to the servers' node")
	}
}

// Where the storage offers ReadWriteMany every server shares one claim;
// a cluster's own RDMA resource name replaces the default.
func TestKubernetesPDSharedCacheAndRDMAName(t *testing.T) {
	cfg := space.Config{"disaggregation": "pd", "prefill_instances": int64(1), "decode_instances": int64(1),
		"prefill_tp": int64(8), "decode_tp": int64(8)}
	_, objs := decodePD(t, twoNodeStudy(), cfg, Options{SharedCache: true, RDMAResource: "rdma/rdma_shared_device_a"})
	if len(objs.Claims) != 1 || objs.Claims[0].Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Fatalf("claims %+v", objs.Claims)
	}
	for _, d := range objs.Deployments[:2] {
		if claimOf(d) != CacheClaim {
			t.Errorf("%s mounts %q", d.Name, claimOf(d))
		}
		if _, ok := container(d).Resources.Limits["rdma/rdma_shared_device_a"]; !ok {
			t.Errorf("%s: resources %+v", d.Name, container(d).Resources)
		}
	}
}

// vLLM's router in a manifest is its production router (vllm-project/
// router), installed by an init container into a volume, dialling the
// servers' Services, not the proxy from vLLM's test tree; --router-image
// runs an image's own vllm-router instead.
func TestKubernetesPDVLLMRunsTheProductionRouter(t *testing.T) {
	cfg := space.Config{"disaggregation": "pd", "prefill_instances": int64(1), "decode_instances": int64(1)}
	plans, objs := decodePD(t, study("vllm", 8, nil), cfg, Options{})
	r := objs.Deployments[2].Spec.Template.Spec
	argv := strings.Join(append(r.Containers[0].Command, r.Containers[0].Args...), " ")
	want := "python3 -m vllm_router.launch_router --vllm-pd-disaggregation --prefill http://" + plans[0].Name + ":8001 --decode http://" + plans[1].Name + ":8002 --host 0.0.0.0 --port 8000"
	if argv != want {
		t.Fatalf("router argv\n %s\nwant\n %s", argv, want)
	}
	if len(r.InitContainers) != 1 || !strings.Contains(strings.Join(r.InitContainers[0].Args, " "), VLLMRouterPackage) ||
		r.InitContainers[0].VolumeMounts[0].MountPath != r.Containers[0].VolumeMounts[0].MountPath || r.Containers[0].Image != "vllm/vllm-openai:v0.15.1" {
		t.Fatalf("router pod %+v", r)
	}
	if strings.Contains(argv, "toy_proxy") {
		t.Fatal("the test-tree proxy is exported")
	}
	plans, objs = decodePD(t, study("vllm", 8, nil), cfg, Options{RouterImage: "registry.example/vllm-router:0.1.17"})
	r = objs.Deployments[2].Spec.Template.Spec
	if len(r.InitContainers) != 0 || r.Containers[0].Image != "registry.example/vllm-router:0.1.17" || r.Containers[0].Command[0] != "vllm-router" {
		t.Fatalf("with --router-image: %+v", r)
	}
	if plans[0].Image != "vllm/vllm-openai:v0.15.1" {
		t.Fatalf("--router-image changed a server's image: %s", plans[0].Image)
	}
}
