package engines

import "strings"

// SGLang's disaggregated deployment, read from python/sglang/srt/
// server_args.py (ServerArgs.disaggregation_mode "null"|"prefill"|
// "decode", disaggregation_transfer_backend, disaggregation_bootstrap_port
// = 8998) and docs/advanced_features/pd_disaggregation.md, which starts
// the router as `python -m sglang_router.launch_router --pd-disaggregation
// --prefill URL [BOOTSTRAP_PORT] --decode URL --host H --port P`
// (sgl-router's launch_router: --prefill takes the URL and an optional
// bootstrap port, --decode the URL; both repeat once per server).

// sglangBootstrapPort is server_args.py's disaggregation_bootstrap_port
// default.
const sglangBootstrapPort = 8998

// sglangPD is the first release servetune renders disaggregated: the
// oldest its tables cover (the seeds' 0.5.3.post3 has the flags); older
// releases are refused rather than guessed.
func sglangPD() Version { return MustVersion("0.5.0") }

// sglangPDBackends: server_args.py's --disaggregation-transfer-backend
// choices that reach another GPU server (mooncake is the default; "fake"
// is a test stub and "ascend" is for NPUs, neither rendered).
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
	if b := p.Backend; b != "" && !contains(sglangPDBackends(v), b) {
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
	roster := &Roster{}
	for i, a := range argv {
		if (a == "--prefill" || a == "--decode") && i+1 < len(argv) {
			roster.URLs = append(roster.URLs, argv[i+1])
		}
	}
	return PDProcess{Role: RoleRouter, Command: Command{Argv: argv, Program: len(sglangRouterProgram())},
		Port: ports.Router, Probes: []string{"/health"}, Roster: roster}
}
