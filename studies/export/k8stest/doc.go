// Package k8stest reads Kubernetes manifests strictly into the API's own
// typed objects (k8s.io/api), for tests: an unknown or misspelt field, a
// value of the wrong type or a kind it does not know is an error, as
// `kubectl apply --validate=strict` would make it.
package k8stest
