package studies

import (
	"strings"
	"testing"
)

func TestCheckWorkers(t *testing.T) {
	sim := studySpace(t, 3, "")
	sim.Target.Runner = "sim"
	proc := studySpace(t, 3, "")
	proc.Target.Runner = "process"
	for _, c := range []struct {
		name    string
		runner  string
		n       int
		devices []string
		want    string
	}{
		{"one worker", "process", 1, nil, ""},
		{"no worker", "sim", 0, nil, "--workers must be at least 1"},
		{"simulated side by side", "sim", 4, nil, ""},
		{"real engines without GPUs", "process", 2, nil, "--workers 2 runs 2 real engines at once"},
		{"real engines packed", "process", 2, []string{"0", "1"}, ""},
	} {
		sp := sim
		if c.runner == "process" {
			sp = proc
		}
		err := CheckWorkers(sp, c.n, c.devices)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
