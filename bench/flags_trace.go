package bench

import "fmt"

var traceFlagNames = []string{"trace-format", "speedup", "trace-start", "trace-duration", "sample", "block-tokens"}

// applyTrace sets the trace table from its flags. A trace's lengths and
// arrivals are its own, so the random dataset's defaults are cleared and
// --num-prompts, when given, caps the requests; a trace flag needs
// --dataset trace.
func applyTrace(c Flags, p *Profile) error {
	if p.DatasetName() != DatasetTrace {
		for _, name := range traceFlagNames {
			if c.IsSet(name) {
				return fmt.Errorf("--%s needs --dataset trace", name)
			}
		}
		return nil
	}
	for _, name := range []string{"input-len", "output-len", "range-ratio", "prefix-len", "request-rate", "burstiness"} {
		if c.IsSet(name) {
			return fmt.Errorf("--%s does not apply to --dataset trace (the trace gives lengths and arrivals; --speedup scales them)", name)
		}
	}
	p.InputLen, p.OutputLen, p.RequestRate, p.Burstiness = 0, 0, 0, 0
	if !c.IsSet("num-prompts") {
		p.NumPrompts = 0
	}
	p.Trace = &Trace{Format: c.String("trace-format"), Speedup: c.Float64("speedup"), Start: c.Duration("trace-start"),
		Duration: c.Duration("trace-duration"), Sample: c.Float64("sample"), BlockTokens: c.Int("block-tokens")}
	return nil
}

// traceFlagOfKey names the flag of each trace table key.
var traceFlagOfKey = map[string]string{
	"trace.format": "--trace-format", "trace.speedup": "--speedup", "trace.start": "--trace-start",
	"trace.duration": "--trace-duration", "trace.sample": "--sample", "trace.block_tokens": "--block-tokens",
	"dataset_path": "--dataset-path",
}
