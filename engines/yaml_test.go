package engines

import (
	"fmt"
	"testing"
)

func TestYAMLRoundTrip(t *testing.T) {
	in := map[string]any{"a": int64(1), "b": map[string]any{"c": "x y", "d": false, "e": map[string]any{}}, "f": nil, "g": 0.85, "h": "8"}
	out, err := readYAML(writeYAML(in))
	if err != nil || fmt.Sprint(out) != fmt.Sprint(in) {
		t.Errorf("readYAML(writeYAML(m)) = %v, %v; want %v", out, err, in)
	}
	flow, err := readYAML("cuda_graph_config: {enable_padding: true, max_batch_size: 256}\n# comment\nkv_cache_config:\n  dtype: fp8 # trailing\n")
	if err != nil || fmt.Sprint(flow) != "map[cuda_graph_config:map[enable_padding:true max_batch_size:256] kv_cache_config:map[dtype:fp8]]" {
		t.Errorf("flow YAML = %v, %v", flow, err)
	}
}
