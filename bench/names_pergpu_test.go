package bench

import "testing"

// Every throughput with a per-GPU figure has it among the known metrics,
// so an objective naming it loads, and nothing else ends in the suffix.
func TestPerGPUNamesAreKnown(t *testing.T) {
	for _, n := range perGPU {
		if !KnownMetric(n + PerGPUSuffix) {
			t.Errorf("%s%s is not a known metric", n, PerGPUSuffix)
		}
		if got, ok := PerGPUOf("stage1_" + n + PerGPUSuffix); !ok || got != "stage1_"+n {
			t.Errorf("PerGPUOf(stage1_%s%s) = %q, %v", n, PerGPUSuffix, got, ok)
		}
	}
	for _, name := range MetricNames() {
		if total, ok := PerGPUOf(name); !ok && len(name) > len(PerGPUSuffix) && name[len(name)-len(PerGPUSuffix):] == PerGPUSuffix {
			t.Errorf("%s ends in %s but divides no throughput (%q)", name, PerGPUSuffix, total)
		}
	}
}
