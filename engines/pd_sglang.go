package engines

import (
	"slices"
	"strings"
)

// SGLang's disaggregated deployment, as in v0.5.6 (commit 7ae368e, "chore:
// bump SGLang version to 0.5.6", where python/sglang/version.py first
// reads 0.5.6): python/sglang/srt/server_args.py:3747 --disaggregation-mode
// (choices null|prefill|decode), :3754 --disaggregation-transfer-backend
// (choices DISAGG_TRANSFER_BACKEND_CHOICES, :134), :3761
// --disaggregation-bootstrap-port (default 8998, :557). The router is
// `python -m sglang_router.launch_router` (docs/advanced_features/
// pd_disaggregation.md:52) with sgl-router/bindings/python/sglang_router/
// router_args.py's flags: :191 --pd-disaggregation, :196 --prefill URL
// [BOOTSTRAP_PORT] (nargs="+", once per server), :204 --decode URL, :141
// --host, :147 --port.

// sglangBootstrapPort is server_args.py's disaggregation_bootstrap_port
// default (v0.5.6 :557).
const sglangBootstrapPort = 8998

// sglangPD is the first release servetune renders disaggregated: the
// oldest its tables cover. The flags are older (0.5.0rc2, commit
// fab0f6e, server_args.py:1872, :1879, :1886; no bump to 0.5.0 itself
// is on SGLang's main branch); older releases are refused rather than
// guessed.
func sglangPD() Version { return mustVersion("0.5.0") }

// sglangPDBackends: server_args.py's --disaggregation-transfer-backend
// choices (v0.5.6 :134; 0.5.0rc2 :1882 lacks "fake") that reach another
// GPU server (mooncake is the default; "fake" is a test stub and
// "ascend" is for NPUs, neither rendered).
func sglangPDBackends(v Version) []string {
	if !v.AtLeast(sglangPD()) {
		return nil
	}
	return []string{"mooncake", "nixl"}
}

func (sglang) pdCheck(p PD, v Version) error {
	if !v.AtLeast(sglangPD()) {
		return invalid("knob %s: sglang %s does not accept %q (servetune renders sglang prefill/decode from %s)", KnobDisaggregation, v, Disaggregated, sglangPD())
	}
	if b := p.Backend; b != "" && !slices.Contains(sglangPDBackends(v), b) {
		return invalid("knob %s: sglang %s does not accept %q (accepted: %s)", KnobKVTransferBackend, v, b, strings.Join(sglangPDBackends(v), ", "))
	}
	return nil
}

// roleArgs: --disaggregation-mode, the backend when chosen, and each
// prefill server's own bootstrap port (the decode servers learn it from
// the router with each request).
// pdPeers: a prefill server's bootstrap port, which decode servers dial
// at the host the router names.
func (sglang) pdPeers(role string, i, _ int, ports PDPorts) ([]int, string) {
	if role == RolePrefill {
		return []int{ports.Bootstrap[i]}, ""
	}
	return nil, ""
}

func (sglang) roleArgs(p PD, role string, i int, ports PDPorts) ([]string, map[string]string) {
	args := []string{"--disaggregation-mode=" + role}
	if p.Backend != "" {
		args = append(args, "--disaggregation-transfer-backend="+p.Backend)
	}
	if role == RolePrefill {
		args = append(args, "--disaggregation-bootstrap-port="+itoa(ports.Bootstrap[i]))
	}
	return args, nil
}

// sglangRouterProgram is the router's module (the sglang-router
// package, which `pip install sglang[all]` brings).
func sglangRouterProgram() []string { return []string{"python3", "-m", "sglang_router.launch_router"} }

func (sglang) router(p PD, host string, ports PDPorts) PDProcess {
	argv := append(sglangRouterProgram(), "--pd-disaggregation")
	for i := 0; i < p.PrefillCount; i++ {
		argv = append(argv, "--prefill", routerURL(ports, i, host, ports.Prefill[i]), itoa(ports.Bootstrap[i]))
	}
	for i := 0; i < p.DecodeCount; i++ {
		argv = append(argv, "--decode", routerURL(ports, p.PrefillCount+i, host, ports.Decode[i]))
	}
	argv = append(argv, "--host", host, "--port", itoa(ports.Router))
	roster := &Roster{} // every server's URL as given (pd_roster.go)
	for i, a := range argv {
		if (a == "--prefill" || a == "--decode") && i+1 < len(argv) {
			roster.URLs = append(roster.URLs, argv[i+1])
		}
	}
	return PDProcess{Role: RoleRouter, Command: Command{Argv: argv, Program: len(sglangRouterProgram())},
		Port: ports.Router, Probes: []string{"/health"}, Roster: roster}
}
