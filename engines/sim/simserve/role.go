package simserve

import (
	"context"
	"fmt"
	"strings"
	"time"
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

// roleOf reads the role from the engine's flags ("" for an aggregated
// server), or asked when the flags leave it open (vLLM's kv_both) or
// agree with it.
func roleOf(engine string, extra []string, asked string) (string, error) {
	role := ""
	for i := 0; i < len(extra); i++ {
		name, val, hasEq := strings.Cut(extra[i], "=")
		if !hasEq && i+1 < len(extra) && roleFlagAt(name) {
			i++
			val = extra[i]
		}
		if im, ok := imitationOf(engine); ok && im.roleFlag() != "" && name == im.roleFlag() {
			var err error
			if role, err = im.role(val, asked); err != nil {
				return "", err
			}
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

// waitTransfer holds a decode server's request for its prompt's KV
// transfer (model's time when it has one, else the stand-in), divided
// by speed; false when the client went away.
func waitTransfer(ctx context.Context, tokens int, speed float64, model func(int) time.Duration) bool {
	if model == nil {
		return sleep(ctx, transferDelay(tokens, speed))
	}
	return sleep(ctx, time.Duration(float64(model(tokens))/speed))
}
