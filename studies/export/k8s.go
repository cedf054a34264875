package export

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/servetune/servetune/engines"
)

// Kubernetes names the user provides: the Secret holding a Hugging Face
// token (optional: public checkpoints need none) and the claim the model
// cache lives on, shared by every exported trial so a checkpoint is
// downloaded once.
const (
	TokenSecret = "hf-token"
	TokenKey    = "token"
	CacheClaim  = "servetune-model-cache"
)

// Kubernetes is the manifest for `kubectl apply -f`: the generated files'
// ConfigMap (if any), the model cache's PersistentVolumeClaim, a
// Deployment and a Service.
func Kubernetes(p Plan) ([]byte, error) {
	return encodeManifest(header([]Plan{p}), oneDocs(p))
}

// oneDocs are one server's documents.
func oneDocs(p Plan) []any {
	var docs []any
	if len(p.Files) > 0 {
		docs = append(docs, obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(p), "data": p.Files})
	}
	return append(docs, cacheClaim(p.Claim, "ReadWriteOnce"), deployment(p), service(p))
}

// commented is a document with the comment lines written above it.
type commented struct {
	note []string
	doc  any
}

// encodeManifest writes the header comment, then the documents as one
// multi-document YAML stream.
func encodeManifest(head []string, docs []any) ([]byte, error) {
	var b bytes.Buffer
	writeComment(&b, head)
	for i, doc := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		if c, ok := doc.(commented); ok {
			writeComment(&b, c.note)
			doc = c.doc
		}
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		if err := enc.Close(); err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
	}
	return b.Bytes(), nil
}

// writeComment writes lines as YAML comments, one line each.
func writeComment(b *bytes.Buffer, lines []string) {
	for _, l := range lines {
		b.WriteString(strings.TrimRight("# "+strings.ReplaceAll(l, "\n", " "), " ") + "\n")
	}
}

type obj = map[string]any

func meta(p Plan) obj {
	return obj{"name": p.Name, "labels": obj{"app": p.Name, "servetune.study": label(p.Study), "servetune.trial": strconv.Itoa(p.Trial)}}
}

// label is a study name as a label value: at most 63 characters of
// [A-Za-z0-9._-], beginning and ending alphanumeric.
func label(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '-' || c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			b[i] = '-'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	return string(bytes.Trim(b, "-_."))
}

// cacheClaim keeps checkpoints across restarts and trials; its size is
// the one figure to adjust (a 700 GB FP8 checkpoint needs more).
func cacheClaim(name, access string) obj {
	return obj{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": obj{"name": name}, "spec": obj{
		"accessModes": []string{access},
		"resources":   obj{"requests": obj{"storage": "500Gi"}},
	}}
}

func service(p Plan) obj {
	return obj{"apiVersion": "v1", "kind": "Service", "metadata": meta(p), "spec": obj{
		"selector": obj{"app": p.Name},
		"ports":    append([]obj{{"name": "http", "port": p.Port, "targetPort": "http"}}, peerPorts(p)...),
	}}
}

// deployment recreates rather than rolls: a second pod would need a
// second set of GPUs while the first still holds its own.
// Its comment says where its replica count and node selector came from.
func deployment(p Plan) any {
	d := obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(p), "spec": obj{
		"replicas": max(1, p.Replicas),
		"strategy": obj{"type": "Recreate"},
		"selector": obj{"matchLabels": obj{"app": p.Name}},
		"template": obj{"metadata": obj{"labels": podLabels(p)}, "spec": podSpec(p)},
	}}
	var note []string
	for _, why := range []string{p.ReplicasWhy, p.SelectorWhy} {
		if why != "" {
			note = append(note, p.Name+": "+why+".")
		}
	}
	return commented{note, d}
}

func podSpec(p Plan) obj {
	c := obj{"name": "engine", "image": p.Image, "command": p.Argv[:1], "args": p.Argv[1:],
		"ports": []obj{{"name": "http", "containerPort": p.Port}}, "env": env(p)}
	for k, v := range probes(p) {
		c[k] = v
	}
	mounts, vols := cacheVolumes(p)
	if len(p.Files) > 0 {
		mounts = append(mounts, obj{"name": "files", "mountPath": "/servetune", "readOnly": true})
		vols = append(vols, obj{"name": "files", "configMap": obj{"name": p.Name}})
		c["workingDir"] = "/servetune"
	}
	if len(mounts) > 0 {
		c["volumeMounts"] = mounts
	}
	res := obj{}
	if p.GPUs > 0 {
		res["nvidia.com/gpu"] = p.GPUs
	}
	if p.RDMA != "" {
		// RDMA memory registration pins the KV buffers.
		res[p.RDMA] = 1
		c["securityContext"] = obj{"capabilities": obj{"add": []string{"IPC_LOCK"}}}
	}
	if len(res) > 0 {
		c["resources"] = obj{"requests": res, "limits": res}
	}
	spec := obj{"containers": []obj{c}}
	if len(p.Install) > 0 {
		// The program the image lacks, installed into a shared volume.
		m := []obj{{"name": "install", "mountPath": p.InstallDir}}
		spec["initContainers"] = []obj{{"name": "install", "image": p.Image, "command": p.Install[:1], "args": p.Install[1:], "volumeMounts": m}}
		c["volumeMounts"] = append(mounts, m...)
		vols = append(vols, obj{"name": "install", "emptyDir": obj{}})
	}
	if len(vols) > 0 {
		spec["volumes"] = vols
	}
	if a := affinity(p); a != nil {
		spec["affinity"] = a
	}
	if len(p.NodeSelector) > 0 {
		spec["nodeSelector"] = p.NodeSelector
	}
	return spec
}

// cacheVolumes are a server's /dev/shm (tensor-parallel workers share
// memory through it, which a pod caps at 64 MiB unless it mounts one)
// and its model cache; the router has neither.
func cacheVolumes(p Plan) (mounts, vols []obj) {
	if p.Role == engines.RoleRouter {
		return nil, nil
	}
	mounts = []obj{{"name": "shm", "mountPath": "/dev/shm"}}
	vols = []obj{{"name": "shm", "emptyDir": obj{"medium": "Memory"}}}
	if p.Claim != "" {
		mounts = append(mounts, obj{"name": "cache", "mountPath": p.Cache})
		vols = append(vols, obj{"name": "cache", "persistentVolumeClaim": obj{"claimName": p.Claim}})
	}
	return mounts, vols
}

// env is the command's variables, the pod's address where peers need it
// announced, then HF_TOKEN from its Secret.
func env(p Plan) []obj {
	out := []obj{}
	for _, k := range slices.Sorted(maps.Keys(p.Env)) {
		out = append(out, obj{"name": k, "value": p.Env[k]})
	}
	if p.HostEnv != "" {
		out = append(out, obj{"name": p.HostEnv, "valueFrom": obj{"fieldRef": obj{"fieldPath": "status.podIP"}}})
	}
	if p.HFToken {
		out = append(out, obj{"name": "HF_HOME", "value": p.Cache}, obj{"name": "HF_TOKEN", "valueFrom": obj{
			"secretKeyRef": obj{"name": TokenSecret, "key": TokenKey, "optional": true}}})
	}
	return out
}

// probes: startup allows the whole load (download, weights, CUDA graphs)
// before liveness counts; readiness takes the pod out of the Service
// while the engine cannot answer; liveness restarts an engine that
// stopped answering (vLLM's /health turns 503 when its core dies).
func probes(p Plan) obj {
	check := obj{"tcpSocket": obj{"port": "http"}}
	if p.Health != "" {
		check = obj{"httpGet": obj{"path": p.Health, "port": "http"}}
	}
	probe := func(period, timeout, failures int) obj {
		o := obj{"periodSeconds": period, "timeoutSeconds": timeout, "failureThreshold": failures}
		for k, v := range check {
			o[k] = v
		}
		return o
	}
	const startPeriod = 10
	return obj{
		"startupProbe":   probe(startPeriod, 5, max(1, int(p.Load.Seconds())/startPeriod)),
		"readinessProbe": probe(5, 5, 3),
		"livenessProbe":  probe(10, 10, 6),
	}
}
