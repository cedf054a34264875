package export

import (
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/servetune/servetune/space"
)

// composeFile is the part of the Compose specification the export
// writes; decoding with KnownFields refuses anything else.
type composeFile struct {
	Name     string                `yaml:"name"`
	Networks map[string]struct{}   `yaml:"networks"`
	Volumes  map[string]struct{}   `yaml:"volumes"`
	Services map[string]composeSvc `yaml:"services"`
}

type composeSvc struct {
	Image       string   `yaml:"image"`
	Hostname    string   `yaml:"hostname"`
	Entrypoint  []string `yaml:"entrypoint"`
	Command     []string `yaml:"command"`
	Environment []string `yaml:"environment"`
	Networks    []string `yaml:"networks"`
	Restart     string   `yaml:"restart"`
	IPC         string   `yaml:"ipc"`
	Volumes     []string `yaml:"volumes"`
	Ports       []string `yaml:"ports"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Deploy struct {
		Resources struct {
			Reservations struct {
				Devices []struct {
					Driver       string   `yaml:"driver"`
					DeviceIDs    []string `yaml:"device_ids"`
					Capabilities []string `yaml:"capabilities"`
				} `yaml:"devices"`
			} `yaml:"reservations"`
		} `yaml:"resources"`
	} `yaml:"deploy"`
}

func decodeCompose(t *testing.T, b []byte) composeFile {
	t.Helper()
	var f composeFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("compose file: %v\n%s", err, b)
	}
	return f
}

func (s composeSvc) devices() []string {
	var out []string
	for _, d := range s.Deploy.Resources.Reservations.Devices {
		if d.Driver != "nvidia" || !slices.Equal(d.Capabilities, []string{"gpu"}) {
			return []string{"bad device " + d.Driver}
		}
		out = append(out, d.DeviceIDs...)
	}
	return out
}

// A disaggregated trial on one host: a service per server with its own
// GPUs, in order and disjoint, the router publishing its port and
// dialling the servers by their service names on the shared network,
// each command the trial's argv.
func TestComposePDRunsEveryRoleOnOneHost(t *testing.T) {
	cfg := space.Config{"disaggregation": "pd", "prefill_instances": int64(2), "decode_instances": int64(1),
		"prefill_tp": int64(2), "decode_tp": int64(4)}
	plans, err := NewPD(study("sglang", 8, nil), complete(cfg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ComposePD(plans, study("sglang", 8, nil).Target)
	if err != nil {
		t.Fatal(err)
	}
	f := decodeCompose(t, b)
	if _, ok := f.Networks[ComposeNetwork]; !ok || f.Name != "my-study-trial-7" {
		t.Fatalf("name %q networks %v", f.Name, f.Networks)
	}
	want := map[string][]string{
		"my-study-trial-7-prefill-0": {"0", "1"},
		"my-study-trial-7-prefill-1": {"2", "3"},
		"my-study-trial-7-decode-0":  {"4", "5", "6", "7"},
		"my-study-trial-7-router":    nil,
	}
	if len(f.Services) != len(want) {
		t.Fatalf("services %v", f.Services)
	}
	for i, p := range plans {
		s, ok := f.Services[p.Name]
		if !ok {
			t.Fatalf("no service %s", p.Name)
		}
		if got := s.devices(); !slices.Equal(got, want[p.Name]) {
			t.Errorf("%s: devices %v, want %v", p.Name, got, want[p.Name])
		}
		if argv := append(slices.Clone(s.Entrypoint), s.Command...); !slices.Equal(argv, plans[i].Argv) {
			t.Errorf("%s: argv %q, want %q", p.Name, argv, plans[i].Argv)
		}
		if !slices.Equal(s.Networks, []string{ComposeNetwork}) || s.Image != "lmsysorg/sglang:v0.5.14" || s.Hostname != p.Name {
			t.Errorf("%s: networks %v image %s hostname %s", p.Name, s.Networks, s.Image, s.Hostname)
		}
		router := p.Role == "router"
		if router != (len(s.Volumes) == 0) || router != (s.IPC == "") || router != (len(s.Ports) == 1) {
			t.Errorf("%s: volumes %v ipc %q ports %v", p.Name, s.Volumes, s.IPC, s.Ports)
		}
	}
	r := f.Services["my-study-trial-7-router"]
	if len(r.DependsOn) != 3 || r.DependsOn["my-study-trial-7-decode-0"].Condition != "service_started" || r.Ports[0] != "30000:30000" {
		t.Errorf("router depends on %v, publishes %v", r.DependsOn, r.Ports)
	}
	if cmd := strings.Join(r.Command, " "); !strings.Contains(cmd, "http://my-study-trial-7-decode-0:") {
		t.Errorf("the router does not dial the decode service by name: %s", cmd)
	}
	if strings.Contains(string(b), "hf_") {
		t.Errorf("a token value reached the file")
	}
}

// vLLM's servers announce their service name for NIXL's side channel;
// a deployment wider than one host is refused, naming the k8s export.
func TestComposePDAnnouncesNamesAndRefusesTwoNodes(t *testing.T) {
	cfg := space.Config{"disaggregation": "pd", "prefill_instances": int64(1), "decode_instances": int64(1)}
	plans, err := NewPD(study("vllm", 8, nil), complete(cfg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ComposePD(plans, study("vllm", 8, nil).Target)
	if err != nil {
		t.Fatal(err)
	}
	f := decodeCompose(t, b)
	p := f.Services[plans[0].Name]
	if !slices.Contains(p.Environment, "VLLM_NIXL_SIDE_CHANNEL_HOST="+plans[0].Name) || !slices.Contains(p.Environment, "HF_TOKEN") {
		t.Errorf("prefill environment %v", p.Environment)
	}
	// vLLM's router is installed by a one-shot service the router waits
	// for, into the volume it runs it from.
	r, inst := f.Services[plans[2].Name], f.Services[plans[2].Name+"-install"]
	if r.DependsOn[plans[2].Name+"-install"].Condition != "service_completed_successfully" ||
		!slices.Equal(r.Volumes, inst.Volumes) || len(r.Volumes) != 1 || !slices.Contains(inst.Command, VLLMRouterPackage) {
		t.Errorf("router %+v, install %+v", r, inst)
	}
	if got := strings.Join(append(r.Entrypoint, r.Command...), " "); !strings.HasPrefix(got, "python3 -m vllm_router.launch_router --vllm-pd-disaggregation --prefill http://"+plans[0].Name+":") {
		t.Errorf("router argv %s", got)
	}
	wide := space.Config{"disaggregation": "pd", "prefill_instances": int64(1), "decode_instances": int64(1),
		"prefill_tp": int64(8), "decode_tp": int64(8)}
	plans, err = NewPD(twoNodeStudy(), complete(wide), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ComposePD(plans, twoNodeStudy().Target); err == nil || !strings.Contains(err.Error(), "needs 16 GPUs, one host of the target has 8") {
		t.Fatalf("err = %v", err)
	}
}
