package launch

import (
	"strings"
	"testing"
)

// TestOnNode: {host} is replaced in every word, and the config's own
// variables ride along as `env K=V` (ssh does not carry the environment);
// an empty node_launch runs the rank here, unprefixed.
func TestOnNode(t *testing.T) {
	env := map[string]string{"VLLM_ATTENTION_BACKEND": "FLASHINFER", "VLLM_ALL2ALL_BACKEND": "deepep_low_latency"}
	got := onNode([]string{"srun", "-w", "{host}", "--job-name=st-{host}"}, "gpu02", env)
	want := []string{"srun", "-w", "gpu02", "--job-name=st-gpu02", "env", "VLLM_ALL2ALL_BACKEND=deepep_low_latency", "VLLM_ATTENTION_BACKEND=FLASHINFER"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("onNode = %q, want %q", got, want)
	}
	if got := onNode(nil, "gpu02", env); got != nil {
		t.Errorf("empty node_launch = %q, want nothing", got)
	}
	if got := onNode([]string{"ssh", "{host}"}, "gpu02", nil); strings.Join(got, " ") != "ssh gpu02" {
		t.Errorf("without env = %q", got)
	}
}
