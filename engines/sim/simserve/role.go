package simserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/servetune/servetune/engines"
)

// A simulated server of a disaggregated deployment takes its role from
// the imitated engine's own flags: SGLang's --disaggregation-mode
// prefill|decode, vLLM's --kv-transfer-config kv_role (kv_producer is a
// prefill server, kv_consumer a decode server; kv_both takes its role
// from --role). A prefill server computes the prompt and answers one
// token; a decode server waits for the prompt's KV transfer and then
// decodes without computing the prompt (sim.LiveRequest.Arrived).

// Transfer time of a prompt's KV from the prefill to the decode server
// when the analytic model cannot give one (transfer.go): a fixed term
// plus one per prompt token (≈ 0.1–0.5 MB of KV per token over tens to
// hundreds of GB/s), divided by --speed.
const (
	kvTransferBase     = time.Millisecond
	kvTransferPerToken = time.Microsecond
)

// transferDelay is the simulated wall time of a prompt's KV transfer.
func transferDelay(tokens int, speed float64) time.Duration {
	return time.Duration(float64(kvTransferBase+time.Duration(tokens)*kvTransferPerToken) / speed)
}

// pdFlags are the role flags a simulated server accepts; their values
// change nothing but the role.
func pdFlags(engine string, fs map[string]extraFlag) {
	switch engine {
	case engines.SGLang:
		noops(fs, true, "--disaggregation-mode", "--disaggregation-transfer-backend", "--disaggregation-bootstrap-port",
			"--disaggregation-ib-device")
	case engines.VLLM:
		noops(fs, true, "--kv-transfer-config")
	}
}

// roleOf reads the role from the engine's flags ("" for an aggregated
// server), or asked when the flags leave it open (vLLM's kv_both) or
// agree with it.
func roleOf(engine string, extra []string, asked string) (string, error) {
	role := ""
	for i := 0; i < len(extra); i++ {
		name, val, hasEq := strings.Cut(extra[i], "=")
		if !hasEq && i+1 < len(extra) && (name == "--disaggregation-mode" || name == "--kv-transfer-config") {
			i++
			val = extra[i]
		}
		var err error
		switch {
		case engine == engines.SGLang && name == "--disaggregation-mode":
			role, err = sglangMode(val)
		case engine == engines.VLLM && name == "--kv-transfer-config":
			role, err = vllmRole(val, asked)
		}
		if err != nil {
			return "", err
		}
	}
	if asked != "" && role != "" && asked != role {
		return "", fmt.Errorf("--role %s, but the engine's flags make it a %s server", asked, role)
	}
	return or(role, asked), nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sglangMode is server_args.py's --disaggregation-mode choices.
func sglangMode(v string) (string, error) {
	switch v {
	case "null":
		return "", nil
	case engines.RolePrefill, engines.RoleDecode:
		return v, nil
	}
	return "", fmt.Errorf("sglang: argument --disaggregation-mode: invalid choice: '%s' (choose from 'null', 'prefill', 'decode')", v)
}

// vllmRole reads kv_role from --kv-transfer-config (vllm/config/
// kv_transfer.py's KVRole).
func vllmRole(v, asked string) (string, error) {
	var c struct {
		Connector string `json:"kv_connector"`
		Role      string `json:"kv_role"`
	}
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		return "", fmt.Errorf("vllm: argument --kv-transfer-config: %v", err)
	}
	switch c.Role {
	case "kv_producer":
		return engines.RolePrefill, nil
	case "kv_consumer":
		return engines.RoleDecode, nil
	case "kv_both":
		return asked, nil
	}
	return "", fmt.Errorf("vllm: ValueError: Unsupported kv_role: %s. Supported roles are ('kv_producer', 'kv_consumer', 'kv_both')", c.Role)
}

// waitTransfer holds a decode server's request for its prompt's KV
// transfer (model's time when it has one, else the stand-in), divided
// by speed; false when the client went away.
func waitTransfer(ctx context.Context, tokens int, speed float64, model func(int) time.Duration) bool {
	if model == nil {
		return sleep(ctx, transferDelay(tokens, speed))
	}
	return sleep(ctx, time.Duration(float64(model(tokens))/speed))
}
