package k8stest

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// Objects are a manifest's documents by kind, in file order.
type Objects struct {
	Deployments  []appsv1.Deployment
	StatefulSets []appsv1.StatefulSet
	Jobs         []batchv1.Job
	Pods         []corev1.Pod
	Services     []corev1.Service
	ConfigMaps   []corev1.ConfigMap
	Secrets      []corev1.Secret
	Claims       []corev1.PersistentVolumeClaim
}

// Decode parses every document of a multi-document YAML manifest.
func Decode(manifest []byte) (Objects, error) {
	var o Objects
	dec := yaml.NewDecoder(bytes.NewReader(manifest))
	for i := 1; ; i++ {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return o, nil
		}
		if err != nil {
			return o, fmt.Errorf("document %d: %w", i, err)
		}
		b, err := yaml.Marshal(&n)
		if err != nil {
			return o, fmt.Errorf("document %d: %w", i, err)
		}
		if err := o.add(b); err != nil {
			return o, fmt.Errorf("document %d: %w", i, err)
		}
	}
}

func (o *Objects) add(doc []byte) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := sigsyaml.Unmarshal(doc, &head); err != nil {
		return err
	}
	switch head.APIVersion + " " + head.Kind {
	case "apps/v1 Deployment":
		return into(doc, &o.Deployments)
	case "apps/v1 StatefulSet":
		return into(doc, &o.StatefulSets)
	case "batch/v1 Job":
		return into(doc, &o.Jobs)
	case "v1 Pod":
		return into(doc, &o.Pods)
	case "v1 Service":
		return into(doc, &o.Services)
	case "v1 ConfigMap":
		return into(doc, &o.ConfigMaps)
	case "v1 Secret":
		return into(doc, &o.Secrets)
	case "v1 PersistentVolumeClaim":
		return into(doc, &o.Claims)
	}
	return fmt.Errorf("unknown kind %s %s", head.APIVersion, head.Kind)
}

func into[T any](doc []byte, dst *[]T) error {
	var v T
	if err := sigsyaml.UnmarshalStrict(doc, &v); err != nil {
		return err
	}
	*dst = append(*dst, v)
	return nil
}
