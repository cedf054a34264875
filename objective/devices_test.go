package objective

import (
	"slices"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestParseDevices(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"0-7", []string{"0", "1", "2", "3", "4", "5", "6", "7"}, ""},
		{"0,2, 4-5", []string{"0", "2", "4", "5"}, ""},
		{"GPU-1a2b,GPU-3c4d", []string{"GPU-1a2b", "GPU-3c4d"}, ""},
		{"", nil, ""},
		{"3", []string{"3"}, ""},
		{"0,,1", nil, "item 2: empty device"},
		{"0-3,2", nil, "device 2 appears twice"},
		{"5-2", nil, "must go up"},
		{"0-99999", nil, "not a GPU index"},
		{"x", nil, `"x" is not a GPU index`},
		{"-1", nil, "not a GPU index"},
	} {
		got, err := ParseDevices(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseDevices(%q) error %v, want one saying %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseDevices(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestDevicesFromEnvHonoursEachScheduler(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want []string
		from string
	}{
		// SLURM with ConstrainDevices: the job holds the node's GPUs 4-7,
		// which the step's cgroup shows to CUDA as 0-3.
		{map[string]string{"SLURM_JOB_GPUS": "4,5,6,7", "CUDA_VISIBLE_DEVICES": "0,1,2,3"}, []string{"0", "1", "2", "3"}, "CUDA_VISIBLE_DEVICES"},
		// An --exclusive job of 8 GPUs whose step asked for 3.
		{map[string]string{"SLURM_JOB_GPUS": "0,1,2,3,4,5,6,7", "SLURM_STEP_GPUS": "0,1,2"}, []string{"0", "1", "2"}, "SLURM_STEP_GPUS"},
		{map[string]string{"SLURM_JOB_GPUS": "4,5"}, []string{"4", "5"}, "SLURM_JOB_GPUS"},
		{map[string]string{"CUDA_VISIBLE_DEVICES": "0,1"}, []string{"0", "1"}, "CUDA_VISIBLE_DEVICES"},
		{map[string]string{"NVIDIA_VISIBLE_DEVICES": "GPU-aa,GPU-bb"}, []string{"GPU-aa", "GPU-bb"}, "NVIDIA_VISIBLE_DEVICES"},
		{map[string]string{"NVIDIA_VISIBLE_DEVICES": "all"}, nil, ""},
		{map[string]string{}, nil, ""},
	} {
		got, from, err := DevicesFromEnv(func(k string) string { return c.env[k] })
		if err != nil || from != c.from || !slices.Equal(got, c.want) {
			t.Errorf("%v: %v from %q (%v), want %v from %q", c.env, got, from, err, c.want, c.from)
		}
	}
	if _, _, err := DevicesFromEnv(func(k string) string { return map[string]string{"CUDA_VISIBLE_DEVICES": "0,x"}[k] }); err == nil || !strings.Contains(err.Error(), "$CUDA_VISIBLE_DEVICES") {
		t.Errorf("bad CUDA_VISIBLE_DEVICES: %v, want an error naming the variable", err)
	}
}

func TestWithDevicesGivesTheEngineOnlyItsGPUs(t *testing.T) {
	base := space.Target{Env: map[string]string{"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7", "HF_HOME": "/h"}}
	got := WithDevices(base, []string{"4", "5"})
	if got.Env["CUDA_VISIBLE_DEVICES"] != "4,5" || got.Env["HF_HOME"] != "/h" {
		t.Errorf("env %v, want CUDA_VISIBLE_DEVICES=4,5 and the rest kept", got.Env)
	}
	if base.Env["CUDA_VISIBLE_DEVICES"] != "0,1,2,3,4,5,6,7" {
		t.Error("WithDevices changed the target it was given")
	}
	if got := WithDevices(base, nil); got.Env["CUDA_VISIBLE_DEVICES"] != "0,1,2,3,4,5,6,7" {
		t.Errorf("no devices changed the env: %v", got.Env)
	}
	if got := WithDevices(space.Target{}, []string{"GPU-a"}); got.Env["CUDA_VISIBLE_DEVICES"] != "GPU-a" {
		t.Errorf("target without env: %v", got.Env)
	}
}

func FuzzParseDevices(f *testing.F) {
	for _, s := range []string{"0-7", "0,1,2", "GPU-abc,MIG-1", "7-0", "", " , ", "0-1023", "1-2-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := ParseDevices(s)
		if err != nil {
			return
		}
		if len(ids) > maxDevices*(strings.Count(s, ",")+1) {
			t.Fatalf("%q gave %d devices", s, len(ids))
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" || seen[id] {
				t.Fatalf("%q gave empty or repeated device in %v", s, ids)
			}
			seen[id] = true
		}
		again, err := ParseDevices(strings.Join(ids, ","))
		if err != nil || !slices.Equal(again, ids) {
			t.Fatalf("%q → %v does not read back (%v, %v)", s, ids, again, err)
		}
	})
}
