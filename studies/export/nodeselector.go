package export

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/servetune/servetune/internal/suggest"
	"github.com/servetune/servetune/space"
)

// ParseNodeSelectors reads `best --node-selector` values, each
// GPU:KEY=VALUE (one label; repeat the flag for more) or GPU: (pin the
// type's pods to no label), into the per-type node selectors that
// replace [target.node_selector]'s and the default for the types they
// name. The GPU type must be one study sp runs on, and each label one
// Kubernetes accepts.
func ParseNodeSelectors(sp *space.Space, args []string) (map[string]map[string]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	types := sp.GPUTypes()
	out := map[string]map[string]string{}
	for _, a := range args {
		gpu, label, ok := strings.Cut(a, ":")
		gpu = strings.TrimSpace(gpu)
		if !ok || gpu == "" {
			return nil, fmt.Errorf("--node-selector %q: give GPU:KEY=VALUE (e.g. H100:cloud.google.com/gke-accelerator=nvidia-h100-80gb), or GPU: for no selector", a)
		}
		i := slices.IndexFunc(types, func(t string) bool { return strings.EqualFold(t, gpu) })
		if i < 0 {
			return nil, fmt.Errorf("--node-selector %q: GPU type %q is not one study %s runs on%s (its types: %s)", a, gpu, sp.Study.Name, suggest.Hint(gpu, types), strings.Join(types, ", "))
		}
		gpu = types[i]
		if out[gpu] == nil {
			out[gpu] = map[string]string{}
		}
		if label == "" {
			continue
		}
		k, v, ok := strings.Cut(label, "=")
		if !ok {
			return nil, fmt.Errorf("--node-selector %q: the label must be KEY=VALUE", a)
		}
		if p := space.LabelProblem(k, v); p != "" {
			return nil, fmt.Errorf("--node-selector %q: %s", a, p)
		}
		if old, twice := out[gpu][k]; twice && old != v {
			return nil, fmt.Errorf("--node-selector %q: %s of %s is also given as %q", a, k, gpu, old)
		}
		out[gpu][k] = v
	}
	return out, nil
}

// flagSelector is the node selector --node-selector gives GPU type gpu.
func flagSelector(o Options, gpu string) (map[string]string, bool) {
	for _, k := range slices.Sorted(maps.Keys(o.NodeSelector)) {
		if strings.EqualFold(k, gpu) {
			return o.NodeSelector[k], true
		}
	}
	return nil, false
}
