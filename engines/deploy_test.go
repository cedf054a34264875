package engines

import (
	"reflect"
	"slices"
	"testing"

	"github.com/servetune/servetune/space"
)

// Deploy resolves once what Render, RenderPD, GPUs and the report ports
// each answer: one server's command, or every process of a disaggregated
// deployment, never both.
func TestDeployResolvesOneServerOrADeployment(t *testing.T) {
	tgt := func(engine string) space.Target {
		return space.Target{Model: "org/model", Engine: engine, Engines: map[string]space.EngineTarget{engine: {ExtraArgs: []string{"--x"}}}}
	}
	pd := space.Config{KnobDisaggregation: Disaggregated, KnobPrefillInstances: int64(2), KnobDecodeInstances: int64(1), "prefill_tp": int64(2)}
	for _, tc := range []struct {
		name   string
		cfg    space.Config
		t      space.Target
		port   int
		procs  int
		health string
	}{
		{"vllm tp=2", space.Config{KnobTP: int64(2)}, tgt(VLLM), 8000, 0, "/health"},
		{"sglang", space.Config{}, tgt(SGLang), 30000, 0, "/health"},
		{"sglang pd", pd, tgt(SGLang), 30000, 4, "/health"},
		{"vllm pd", pd, tgt(VLLM), 8000, 4, "/health"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Deploy(tc.cfg, tc.t)
			if err != nil {
				t.Fatal(err)
			}
			if d.Name != tc.t.Engine || d.Engine.Name() != tc.t.Engine || d.Port != tc.port || d.Health != tc.health || len(d.Processes) != tc.procs {
				t.Errorf("name %s port %d health %q processes %d; want %s %d %q %d", d.Name, d.Port, d.Health, len(d.Processes), tc.t.Engine, tc.port, tc.health, tc.procs)
			}
			if d.GPUs != GPUs(tc.cfg, tc.t) {
				t.Errorf("GPUs %d, want GPUs' %d", d.GPUs, GPUs(tc.cfg, tc.t))
			}
			key, err := DeploymentKey(tc.cfg, tc.t)
			if err != nil || key != d.Key() {
				t.Errorf("Key %q, want DeploymentKey's %q (%v)", d.Key(), key, err)
			}
			if tc.procs == 0 {
				want, err := Render(tc.cfg, tc.t)
				if err != nil || d.PD != nil || !reflect.DeepEqual(d.Command, want) {
					t.Errorf("command %v, PD %v; want Render's %v (%v)", d.Command, d.PD, want, err)
				}
				if _, err := d.On(PDPorts{}); err == nil {
					t.Errorf("On of one server rendered processes")
				}
				return
			}
			want, err := RenderPD(tc.cfg, tc.t, PDPorts{})
			if err != nil || d.PD == nil || !reflect.DeepEqual(d.Processes, want) || len(d.Command.Argv) != 0 {
				t.Errorf("processes %v, PD %v, command %v; want RenderPD's %v (%v) and no command", d.Processes, d.PD, d.Command, want, err)
			}
			if d.Port != want[len(want)-1].Port {
				t.Errorf("port %d, want the router's %d", d.Port, want[len(want)-1].Port)
			}
			ports := PDPorts{Router: 1, Prefill: []int{2, 3}, Decode: []int{4}, Bootstrap: []int{5, 6}, SideChannel: []int{7, 8, 9}}
			on, err := d.On(ports)
			again, err2 := RenderPD(tc.cfg, tc.t, ports)
			if err != nil || err2 != nil || !reflect.DeepEqual(on, again) {
				t.Errorf("On(ports) = %v, %v; want RenderPD's %v, %v", on, err, again, err2)
			}
		})
	}
}

// A refusal comes back as Render's or RenderPD's, with the engine named.
func TestDeployRefusesAsRenderDoes(t *testing.T) {
	tgt := space.Target{Model: "org/model", Engine: TRTLLM}
	for _, cfg := range []space.Config{
		{"no_such_knob": int64(1)},
		{KnobDisaggregation: Disaggregated}, // TRT-LLM serves no PD
		{KnobEngine: "nope"},
	} {
		d, err := Deploy(cfg, tgt)
		var want error
		if cfg.String(KnobDisaggregation) == Disaggregated {
			_, want = RenderPD(cfg, tgt, PDPorts{})
		} else {
			_, want = Render(cfg, tgt)
		}
		if err == nil || want == nil || err.Error() != want.Error() || d.Name != EngineOf(cfg, tgt) {
			t.Errorf("Deploy(%s) = %q (engine %q); want %q", cfg.Summary(), err, d.Name, want)
		}
	}
}

// Which engines serve disaggregated is the adapters' own answer.
func TestPDEngines(t *testing.T) {
	if got := PDEngines(); !slices.Equal(got, []string{SGLang, VLLM}) {
		t.Errorf("PDEngines() = %v, want sglang and vllm", got)
	}
	for _, n := range Names() {
		_, isPD := all()[slices.Index(Names(), n)].(pdEngine)
		if ServesPD(n) != isPD {
			t.Errorf("ServesPD(%s) = %v, its adapter serves PD: %v", n, ServesPD(n), isPD)
		}
	}
	if ServesPD("nope") {
		t.Error("an unknown engine serves PD")
	}
}
