package studies

import (
	"testing"

	"github.com/servetune/servetune/space"
)

func TestTargetDevice(t *testing.T) {
	for _, tc := range []struct {
		target  space.Target
		engines []string
		want    string
	}{
		{space.Target{GPU: "H200", GPUs: 8}, []string{"vllm", "sglang"}, "gpu"},
		{space.Target{GPUs: 0}, []string{"vllm"}, "cpu"},
		{space.Target{GPU: "cpu", GPUs: 1}, []string{"vllm"}, "cpu"},
		{space.Target{GPUs: 1}, []string{"ollama"}, "cpu"},
		{space.Target{GPU: "A100-80GB", GPUs: 1}, []string{"ollama"}, "gpu"},
		{space.Target{GPUs: 1}, []string{"ollama", "vllm"}, "gpu"},
	} {
		if got := TargetDevice(tc.target, tc.engines); got != tc.want {
			t.Errorf("TargetDevice(%+v, %v) = %s, want %s", tc.target, tc.engines, got, tc.want)
		}
	}
}
