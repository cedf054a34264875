package simserve

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/engines"
)

// The router's and the roles' hand-written argument readers never panic,
// and whatever they accept names at least one server of each side.
func FuzzRouterArgs(f *testing.F) {
	f.Add("sglang", "--pd-disaggregation --prefill http://127.0.0.1:30001 8998 --decode http://127.0.0.1:30002 --host 127.0.0.1 --port 30000")
	f.Add("vllm", "--host 127.0.0.1 --port 8000 --prefiller-hosts a b --prefiller-ports 1 2 --decoder-hosts c --decoder-ports 3")
	f.Add("vllm", "--port x --prefiller-ports")
	f.Fuzz(func(t *testing.T, engine, line string) {
		a, err := parseRouterArgs(engine, strings.Fields(line))
		if err == nil && (len(a.prefill) == 0 || len(a.decode) == 0 || a.port == 0) {
			t.Fatalf("accepted %q as %+v", line, a)
		}
	})
}

func FuzzRoleOf(f *testing.F) {
	f.Add("sglang", "--disaggregation-mode prefill", "")
	f.Add("vllm", `--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_both"}`, "decode")
	f.Add("vllm", "--kv-transfer-config", "prefill")
	f.Fuzz(func(t *testing.T, engine, line, asked string) {
		role, err := roleOf(engine, strings.Fields(line), asked)
		if err == nil && role != "" && role != engines.RolePrefill && role != engines.RoleDecode && role != asked {
			t.Fatalf("role %q from %q", role, line)
		}
	})
}
