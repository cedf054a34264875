package preflight

import (
	"strconv"
	"testing"
)

// nvidia-smi's CSV is parsed by hand: no input panics, and every GPU
// read has a numeric index and memory within what was written.
func FuzzParseSMI(f *testing.F) {
	f.Add(freeGPUs(2))
	f.Add("0, GPU-a, [N/A], [N/A]\n1, GPU-b, 10, 20\n")
	f.Add("4242, GPU-3, 40000\n[Insufficient Permissions]\n")
	f.Add("No devices were found\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, g := range parseGPUs(s) {
			if _, err := strconv.Atoi(g.index); err != nil {
				t.Errorf("index %q", g.index)
			}
		}
		for _, pids := range parseApps(s) {
			for _, p := range pids {
				if n, err := strconv.Atoi(p); err != nil || n <= 0 {
					t.Errorf("pid %q", p)
				}
			}
		}
	})
}
