package space

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/servetune/servetune/internal/suggest"
)

// nodeSelectors reads [target.node_selector]: per GPU type, the node
// labels (key = value) a Kubernetes export pins that type's pods to.
// Each label is checked as Kubernetes checks one, so an export does not
// fail at kubectl apply; which GPU types may be named is checked once the
// params are known (nodeSelectorTypes).
func (d *decoder) nodeSelectors(m map[string]any) map[string]map[string]string {
	if _, ok := m["node_selector"]; !ok {
		return nil
	}
	types := d.table(m, "node_selector", "target.node_selector")
	out := map[string]map[string]string{}
	for _, gpu := range slices.Sorted(maps.Keys(types)) {
		path := join("target.node_selector", gpu)
		labels, ok := types[gpu].(map[string]any)
		if !ok {
			d.fail(path, "must be a table of node labels, such as [target.node_selector.%s] \"nvidia.com/gpu.product\" = \"NVIDIA-H100-80GB-HBM3\"; got %s", gpu, typeName(types[gpu]))
			continue
		}
		sel := map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			v, isString := labels[k].(string)
			switch {
			case !isString:
				d.fail(join(path, k), "must be a string label value, got %s", typeName(labels[k]))
			case labelKeyProblem(k) != "":
				d.fail(join(path, k), "is not a Kubernetes label key: %s", labelKeyProblem(k))
			case labelValueProblem(v) != "":
				d.fail(join(path, k), "%q is not a Kubernetes label value: %s", v, labelValueProblem(v))
			default:
				sel[k] = v
			}
		}
		out[gpu] = sel
	}
	return out
}

// nodeSelectorTypes refuses a node selector for a GPU type the study
// does not run on (a typo would otherwise leave the type's pods on the
// default selector without a word).
func (d *decoder) nodeSelectorTypes(s *Space) {
	if len(s.Target.NodeSelector) == 0 {
		return
	}
	types := s.GPUTypes()
	for _, gpu := range slices.Sorted(maps.Keys(s.Target.NodeSelector)) {
		if !slices.ContainsFunc(types, func(t string) bool { return strings.EqualFold(t, gpu) }) {
			d.fail(join("target.node_selector", gpu), "GPU type %q is not one the study runs on%s (its types: %s)", gpu, suggest.Hint(gpu, types), strings.Join(types, ", "))
		}
	}
}

// GPUTypes are the GPU types the study runs on: the gpu knob's values,
// else target.gpu.
func (s *Space) GPUTypes() []string {
	p, searched := s.Param(KnobGPU)
	if !searched {
		return []string{s.Target.GPU}
	}
	var types []string
	for _, v := range p.Values {
		types = append(types, FormatValue(v))
	}
	return types
}

// LabelProblem says why key = value is not a Kubernetes label ("" when
// it is), as [target.node_selector] checks its entries.
func LabelProblem(key, value string) string {
	if p := labelKeyProblem(key); p != "" {
		return fmt.Sprintf("%q is not a Kubernetes label key: %s", key, p)
	}
	if p := labelValueProblem(value); p != "" {
		return fmt.Sprintf("%q is not a Kubernetes label value: %s", value, p)
	}
	return ""
}

var (
	labelNameRE   = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	labelPrefixRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)
)

// labelKeyProblem says why k is not a label key ("" when it is): an
// optional DNS subdomain prefix and '/', then a name of at most 63
// characters of [A-Za-z0-9._-] beginning and ending alphanumeric
// (Kubernetes' IsQualifiedName).
func labelKeyProblem(k string) string {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		prefix, name = "", k
	}
	switch {
	case hasPrefix && (prefix == "" || len(prefix) > 253 || !labelPrefixRE.MatchString(prefix)):
		return fmt.Sprintf("its prefix %q must be a DNS subdomain (lower case letters, digits, '-' and '.', at most 253 characters)", prefix)
	case name == "" || len(name) > 63 || !labelNameRE.MatchString(name):
		return fmt.Sprintf("its name %q must be 1 to 63 characters of letters, digits, '-', '_' and '.', beginning and ending with a letter or digit", name)
	}
	return ""
}

// labelValueProblem says why v is not a label value ("" when it is):
// empty, or at most 63 characters as a label key's name.
func labelValueProblem(v string) string {
	if v == "" || (len(v) <= 63 && labelNameRE.MatchString(v)) {
		return ""
	}
	return "a label value is at most 63 characters of letters, digits, '-', '_' and '.', beginning and ending with a letter or digit"
}
