package engines

import (
	"slices"
	"strings"
)

// vLLM's disaggregated deployment, as at tag v0.15.1 (commit 1892993):
// vllm/engine/arg_utils.py:1166 --kv-transfer-config (a KVTransferConfig
// as JSON); vllm/config/kv_transfer.py:23 kv_connector, :38 kv_role of
// KVRole (:15; kv_producer|kv_consumer|kv_both, :13-:14);
// vllm/distributed/kv_transfer/kv_connector/factory.py:170 registers
// NixlConnector; vllm/envs.py:184 VLLM_NIXL_SIDE_CHANNEL_PORT (default
// 5600; docs/features/nixl_connector_usage.md: a server's DP ranks use
// base + dp_rank, so blocks must not overlap on a host). The proxy in
// front is tests/v1/kv_connector/nixl_integration/toy_proxy_server.py,
// run from a vLLM checkout: :92 --port, :94 --host, :98
// --prefiller-hosts, :105 --prefiller-ports, :110 --decoder-hosts, :113
// --decoder-ports; :267 GET /healthcheck counts the servers (:272-:273).

// nixlSideChannelPort is VLLM_NIXL_SIDE_CHANNEL_PORT's default.
const nixlSideChannelPort = 5600

// vllmPD is the first release servetune renders disaggregated: the
// oldest its tables cover (v0.10.2 already has NixlConnector and the
// proxy's flags; the first release with them was not looked for); older
// releases are refused rather than guessed.
func vllmPD() Version { return mustVersion("0.11.0") }

// vllmPDBackends: the connectors servetune renders. LMCache's PD mode
// needs LMCache's own configuration file and proxy, and vLLM's
// MooncakeConnector a Mooncake metadata service, which servetune does
// not render; they are refused rather than rendered half.
func vllmPDBackends(v Version) []string {
	if !v.AtLeast(vllmPD()) {
		return nil
	}
	return []string{"nixl"}
}

func (vllm) pdCheck(p PD, v Version) error {
	if !v.AtLeast(vllmPD()) {
		return invalid("knob %s: vllm %s does not accept %q (servetune renders vllm prefill/decode from %s)", KnobDisaggregation, v, Disaggregated, vllmPD())
	}
	if b := p.Backend; b != "" && !slices.Contains(vllmPDBackends(v), b) {
		return invalid("knob %s: vllm %s does not accept %q (accepted: %s; lmcache and mooncake need services servetune does not start)",
			KnobKVTransferBackend, v, b, strings.Join(vllmPDBackends(v), ", "))
	}
	return nil
}

// kvTransferConfig is --kv-transfer-config; field order is the JSON key
// order.
type kvTransferConfig struct {
	Connector string `json:"kv_connector"`
	Role      string `json:"kv_role"`
}

// roleArgs: the connector with the role's kv_role, and the server's own
// NIXL side-channel port.
func (vllm) roleArgs(p PD, role string, i int, ports PDPorts) ([]string, map[string]string) {
	kvRole, slot := "kv_producer", i
	if role == RoleDecode {
		kvRole, slot = "kv_consumer", p.PrefillCount+i
	}
	cfg := compactJSON(kvTransferConfig{Connector: "NixlConnector", Role: kvRole})
	return []string{"--kv-transfer-config=" + cfg}, map[string]string{"VLLM_NIXL_SIDE_CHANNEL_PORT": itoa(ports.SideChannel[slot])}
}

// pdPeers: every server's NIXL side channel (one port per DP rank from
// its base), announced at VLLM_NIXL_SIDE_CHANNEL_HOST (envs.py:183,
// default localhost, which only serves one host).
func (vllm) pdPeers(_ string, _, slot int, ports PDPorts) ([]int, string) {
	return []int{ports.SideChannel[slot]}, "VLLM_NIXL_SIDE_CHANNEL_HOST"
}

// vllmRouterProgram is the proxy vLLM documents, from its source tree.
func vllmRouterProgram() []string {
	return []string{"python3", "tests/v1/kv_connector/nixl_integration/toy_proxy_server.py"}
}

func (vllm) router(p PD, host string, ports PDPorts) PDProcess {
	argv := append(vllmRouterProgram(), "--host", host, "--port", itoa(ports.Router))
	hosts := func(from, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = ports.ServerHost(from+i, host)
		}
		return out
	}
	portWords := func(ps []int, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = itoa(ps[i])
		}
		return out
	}
	argv = append(append(argv, "--prefiller-hosts"), hosts(0, p.PrefillCount)...)
	argv = append(append(argv, "--prefiller-ports"), portWords(ports.Prefill, p.PrefillCount)...)
	argv = append(append(argv, "--decoder-hosts"), hosts(p.PrefillCount, p.DecodeCount)...)
	argv = append(append(argv, "--decoder-ports"), portWords(ports.Decode, p.DecodeCount)...)
	return PDProcess{Role: RoleRouter, Command: Command{Argv: argv, Program: len(vllmRouterProgram())},
		Port: ports.Router, Probes: []string{"/healthcheck"},
		Roster: &Roster{Prefill: p.PrefillCount, Decode: p.DecodeCount}}
}
