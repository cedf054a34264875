package sim

// A model card's efficiency factors scale what the engines' calibration
// (engine.go) assumes for every model, so a study's measurements can
// correct one model without moving the others. Each is 1 when absent
// from the card, and multiplying by exactly 1 keeps every simulated
// number bit-identical to a card without them.

// DefaultMTPAcceptance is the acceptance of MTP/NEXTN heads when the card
// names none.
const DefaultMTPAcceptance = 0.8

// orOne is x, or 1 for an absent (zero) factor.
func orOne(x float64) float64 {
	if x == 0 {
		return 1
	}
	return x
}

// expertEff scales the routed experts' grouped-GEMM throughput.
func (m ModelCard) expertEff() float64 { return orOne(m.ExpertEff) }

// commEff scales the MoE token exchange under DP attention (all-gather or
// DeepEP dispatch/combine), latency and bandwidth alike.
func (m ModelCard) commEff() float64 { return orOne(m.CommEff) }

// memOverhead scales what the memory plan reserves besides weights and
// KV (activation peak, CUDA graphs, runtime buffers): it moves the OOM
// cliff and, where the engine sizes KV from what is left, the KV pool.
func (m ModelCard) memOverhead() float64 { return orOne(m.MemOverhead) }

func (m ModelCard) mtpAcceptance() float64 {
	if m.MTPAcceptance == 0 {
		return DefaultMTPAcceptance
	}
	return m.MTPAcceptance
}
