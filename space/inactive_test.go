package space

import (
	"context"
	"math/rand"
	"strings"
	"testing"
)

const inactiveSrc = `
[study]
name = "inactive"

[target]
model = "m"
gpu = "H100"
gpus = 8

[[objectives]]
metric = "total_tps"
direction = "maximize"

[params.engine]
values = ["vllm", "sglang"]

[params.tp]
values = [1, 2]

[params.enable_dp_attention]
values = [false, true]
%s
`

func loadInactive(t *testing.T, when string) *Space {
	t.Helper()
	src := strings.Replace(inactiveSrc, "%s", when, 1)
	sp, err := Parse(context.Background(), "inactive.toml", src, testOptions())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return sp
}

// An SGLang-only knob without a `when` in a space choosing vLLM or
// SGLang loads, and is never set on a vLLM config; with a `when` that
// lets it be set for vLLM, the same. On SGLang it keeps its domain.
func TestKnobInactiveForAnEngineThatDoesNotTakeIt(t *testing.T) {
	for _, tc := range []struct{ name, when string }{
		{"no when", ""},
		{"when open to vllm", `when = 'tp > 1'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := loadInactive(t, tc.when)
			rng := rand.New(rand.NewSource(3))
			seen := map[string]int{}
			for range 400 {
				c := sp.Sample(rng)
				if c.Has("enable_dp_attention") {
					seen[c.Engine()]++
				}
			}
			if seen["vllm"] != 0 || seen["sglang"] == 0 {
				t.Errorf("configs carrying enable_dp_attention per engine: %v; want none on vllm, some on sglang", seen)
			}
			p, _ := sp.Param("enable_dp_attention")
			if !sp.Active(p, Config{"engine": "sglang", "tp": int64(2)}) || sp.Active(p, Config{"engine": "vllm", "tp": int64(2)}) {
				t.Errorf("when %q: want active on sglang tp=2 and inactive on vllm", p.When)
			}
		})
	}
}

// The original condition still holds on the engines that take the knob.
func TestEngineGuardKeepsTheUsersCondition(t *testing.T) {
	sp := loadInactive(t, `when = 'tp > 1'`)
	p, _ := sp.Param("enable_dp_attention")
	if sp.Active(p, Config{"engine": "sglang", "tp": int64(1)}) {
		t.Errorf("when %q is true on sglang tp=1", p.When)
	}
	if got, want := p.When.String(), `(tp > 1) and engine in ["sglang"]`; got != want {
		t.Errorf("when = %q, want %q", got, want)
	}
}

// A knob every engine takes, or one already restricted to its engine,
// keeps the user's condition untouched.
func TestEngineGuardOnlyWhereNeeded(t *testing.T) {
	sp := loadInactive(t, `when = 'engine == "sglang"'`)
	p, _ := sp.Param("enable_dp_attention")
	if got := p.When.String(); got != `engine == "sglang"` {
		t.Errorf("when = %q, want the user's own", got)
	}
	if tp, _ := sp.Param("tp"); tp.When != nil {
		t.Errorf("tp gained when %q", tp.When)
	}
}

// A knob none of the space's engines takes could never be set: it is
// refused, naming file, line and key.
func TestKnobNoEngineTakesIsStillRefused(t *testing.T) {
	src := strings.Replace(strings.Replace(inactiveSrc, "%s", "", 1),
		"[params.engine]\nvalues = [\"vllm\", \"sglang\"]", "[params.engine]\nvalues = [\"vllm\", \"trtllm\"]", 1)
	_, err := Parse(context.Background(), "inactive.toml", src, testOptions())
	if err == nil || !strings.Contains(err.Error(), `inactive.toml:20: params.enable_dp_attention: engine vllm does not support knob "enable_dp_attention"`) {
		t.Errorf("Parse = %v, want the knob refused at its line", err)
	}
}

// A baseline that sets the knob for an engine that does not take it
// would fail at its trial: the load names it.
func TestBaselineWithAKnobItsEngineDoesNotTake(t *testing.T) {
	src := strings.Replace(inactiveSrc, "%s", "", 1) + "\n[baseline]\nengine = \"vllm\"\nenable_dp_attention = false\n"
	_, err := Parse(context.Background(), "inactive.toml", src, testOptions())
	if err == nil || !strings.Contains(err.Error(), `baseline.enable_dp_attention: engine vllm does not take knob "enable_dp_attention"`) {
		t.Errorf("Parse = %v, want the baseline's knob named", err)
	}
	ok := strings.Replace(src, `engine = "vllm"`, `engine = "sglang"`, 1)
	if _, err := Parse(context.Background(), "inactive.toml", ok, testOptions()); err != nil {
		t.Errorf("the same baseline on sglang: %v", err)
	}
}
