package launch

import (
	"reflect"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// Each server gets its own consecutive GPUs of the trial's devices, the
// router none; a trial without devices counts from 0; too few devices is
// the config's failure.
func TestSplitDevices(t *testing.T) {
	procs := []engines.PDProcess{{Role: engines.RolePrefill, GPUs: 2}, {Role: engines.RolePrefill, GPUs: 2}, {Role: engines.RoleDecode, GPUs: 4}, {Role: engines.RoleRouter}}
	per, all, err := splitDevices(procs, "4,5,6,7,GPU-a,GPU-b,GPU-c,GPU-d")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"4,5", "6,7", "GPU-a,GPU-b,GPU-c,GPU-d", ""}; !reflect.DeepEqual(per, want) || len(all) != 8 {
		t.Fatalf("per %q all %q", per, all)
	}
	if per, all, _ := splitDevices(procs, ""); per[2] != "4,5,6,7" || all != nil {
		t.Fatalf("without devices: %q %q", per, all)
	}
	if _, _, err := splitDevices(procs, "0,1,2"); err == nil {
		t.Fatal("8 GPUs split over 3 devices")
	}
}

// The deployment splits the devices servetune was given when the target
// names none.
func TestPDVisibleDevicesInherited(t *testing.T) {
	l := &Launcher{Environ: []string{"PATH=/bin", "CUDA_VISIBLE_DEVICES=4,5,6,7"}}
	if v := l.visible(space.Target{}, engines.SGLang); v != "4,5,6,7" {
		t.Fatalf("inherited %q", v)
	}
	tgt := space.Target{Env: map[string]string{"CUDA_VISIBLE_DEVICES": "2,3"}}
	if v := l.visible(tgt, engines.SGLang); v != "2,3" {
		t.Fatalf("the trial's %q", v)
	}
}

// Free ports are distinct across every process, bootstrap and side
// channel.
func TestFreePDPortsDistinct(t *testing.T) {
	p := engines.PD{PrefillCount: 3, DecodeCount: 2}
	ports, err := freePDPorts(p, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	all := append(append(append(append([]int{ports.Router}, ports.Prefill...), ports.Decode...), ports.Bootstrap...), ports.SideChannel...)
	seen := map[int]bool{}
	for _, x := range all {
		if seen[x] || x == 0 {
			t.Fatalf("port %d repeated or zero in %+v", x, ports)
		}
		seen[x] = true
	}
	if len(all) != 1+3+2+3+5 {
		t.Fatalf("%d ports", len(all))
	}
}

// Servers fill the nodes in order, each on the next GPUs of its node;
// the router runs on the head; a server larger than a node, or too few
// nodes, is the config's failure.
func TestPlacePD(t *testing.T) {
	pl, err := placePD([]int{2, 2, 4, 8}, []string{"a", "b", "c"}, 8)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "a", "a", "b", "a"}; !reflect.DeepEqual(pl.hosts, want) {
		t.Fatalf("hosts %v, want %v", pl.hosts, want)
	}
	if want := []string{"0,1", "2,3", "4,5,6,7", "0,1,2,3,4,5,6,7", ""}; !reflect.DeepEqual(pl.devices, want) || !pl.remote {
		t.Fatalf("devices %q", pl.devices)
	}
	if _, err := placePD([]int{16}, []string{"a", "b"}, 8); err == nil {
		t.Fatal("a 16-GPU server placed on nodes of 8")
	}
	if _, err := placePD([]int{8, 8, 8}, []string{"a", "b"}, 8); err == nil {
		t.Fatal("24 GPUs placed on two nodes of 8")
	}
}
