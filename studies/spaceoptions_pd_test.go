package studies

import (
	"context"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

const pdSpace = `
[study]
name = "pd"
[target]
runner = "process"
model = "org/m"
gpu = "H200"
gpus = 8
engine = "sglang"
%s
[[objectives]]
metric = "total_tps"
direction = "maximize"
[params.disaggregation]
values = ["none", "pd"]
[params.prefill_tp]
values = [1, 2]
[params.decode_tp]
values = [2, 4]
%s
`

// The PD layer validated at load through the real engines: a transfer
// backend the engine does not take, a release that does not serve
// disaggregated, a misspelt per-side knob (did-you-mean), each at its
// key; a well-formed PD space loads.
func TestSpaceOptionsPD(t *testing.T) {
	for _, c := range []struct{ name, target, params, want string }{
		{"valid", "", "[params.kv_transfer_backend]\nvalues = [\"mooncake\", \"nixl\"]", ""},
		{"backend the engine refuses", "", "[params.kv_transfer_backend]\nvalues = [\"lmcache\"]",
			`pd.toml:20: params.kv_transfer_backend: sglang (newest known): sglang latest does not accept "lmcache" (accepted: mooncake, nixl)`},
		{"release without PD", "[target.engines.sglang]\nversion = \"0.4.9\"", "",
			`params.disaggregation: sglang 0.4.9: sglang 0.4.9 does not accept "pd"`},
		{"misspelt side knob", "", "[params.decode_max_runing]\nvalues = [64]", `did you mean "decode_max_running"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(strings.Replace(pdSpace, "%s", c.target, 1), "%s", c.params, 1)
			_, err := space.Parse(context.Background(), "pd.toml", src, SpaceOptions(nil))
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Parse = %v\nwant %q", err, c.want)
			}
		})
	}
}
