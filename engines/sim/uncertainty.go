package sim

import (
	"math"
	"slices"
	"strings"

	"github.com/servetune/servetune/space"
)

// A prediction's stated uncertainty (issue 45). Each latency metric the
// calibration set measures carries 80% and 95% intervals: the spread of
// the vLLM model's leave-one-out errors on that set (log space, so the
// intervals are multiplicative), shifted by their median bias, and
// widened in quadrature by a documented amount for each way the config
// extrapolates beyond the data (docs/sim.md, "Stated uncertainty").

// Spread is one metric's leave-one-out error distribution in log space:
// r = log(simulated / measured). Bias is its median; H80 and H95 bound
// |r − Bias| for 80% and 95% of a new run's rows, in expectation
// (quantiles of deviations measured as a new run's are, from a median
// without their own run, with the finite-sample correction counted in
// effective independent rows: fidelity.Spreads).
type Spread struct {
	Bias, H80, H95 float64
}

// Interval bounds a metric's true value: 80% and 95% of held-out values
// are meant to fall within [Lo80, Hi80] and [Lo95, Hi95].
type Interval struct {
	Lo80 float64 `json:"lo80"`
	Hi80 float64 `json:"hi80"`
	Lo95 float64 `json:"lo95"`
	Hi95 float64 `json:"hi95"`
}

// Extrapolation is one way a config leaves the calibration data, with the
// log-space standard deviation it adds to every interval.
type Extrapolation struct {
	Name  string  `json:"name"`
	Sigma float64 `json:"sigma"`
}

// Extrapolations a config can make, and what each adds (a log-space
// standard deviation, added in quadrature to the interval's half-width
// at the interval's normal quantile). They are stated, not fitted: no
// calibration run lies there. docs/sim.md gives each one's reasoning.
var (
	// tp > 4: the all-reduce model reproduces its microbenchmark within
	// 15%, and communication is at most about half of a TP8 decode step.
	xTP = Extrapolation{"tp_above_4", 0.08}
	// MoE experts in a dtype other than the calibration MoE's FP8: their
	// kernel's time per byte (dtypekernel.go) is a dense GEMM benchmark's,
	// not yet checked against a real MoE run in that dtype.
	xMoEDtype = Extrapolation{"moe_dtype", 0.15}
	// Another Hopper GPU (H200): the same kernels, another HBM.
	xHopper = Extrapolation{"gpu_hopper", 0.08}
	// Another generation (Ampere, Ada, Blackwell): the measured shares of
	// the datasheet (gpugen.go) cover bandwidth and matmuls, not what
	// else differs (sustained clocks, attention and all-reduce kernels),
	// and no calibration run checks them.
	xGeneration = Extrapolation{"gpu_generation", 0.18}
	// SGLang and TRT-LLM keep the seed-fitted model, checked only
	// against two seed reports' throughputs.
	xEngine = Extrapolation{"engine", 0.2}
)

// z80 and z95 are the two-sided normal quantiles of the intervals.
const (
	z80 = 1.2816
	z95 = 1.9600
)

// Uncertainty is what a config's predictions are uncertain by: the
// leave-one-out spreads and the extrapolations it makes.
type Uncertainty struct {
	Spreads        map[string]Spread
	Extrapolations []Extrapolation
}

// Uncertainty is the stated uncertainty of sm's predictions for cfg on t.
func (sm *Simulator) Uncertainty(cfg space.Config, t space.Target) (Uncertainty, error) {
	s, err := sm.resolve(cfg, t)
	if err != nil {
		return Uncertainty{}, err
	}
	return Uncertainty{Spreads: LOOSpreads(), Extrapolations: s.extrapolations()}, nil
}

// extrapolations are the ways s leaves the calibration set (vLLM on H100,
// TP 1–4, dense BF16 and one FP8 MoE).
func (s *setup) extrapolations() []Extrapolation {
	var out []Extrapolation
	if !s.eng.refitted {
		out = append(out, xEngine)
	}
	if s.tp > 4 {
		out = append(out, xTP)
	}
	if s.model.Experts > 0 && s.weightBytes != 1 {
		out = append(out, xMoEDtype)
	}
	switch gen := GPUGeneration(s.gpu); {
	case s.gpu.Name == "H100":
	case gen == "hopper":
		out = append(out, xHopper)
	default:
		out = append(out, xGeneration)
	}
	return out
}

// Interval is metric's interval around the prediction v; false when the
// metric has no spread (throughputs, counts) or v is not a positive
// finite number — the interval is then absent, never NaN.
func (u Uncertainty) Interval(metric string, v float64) (Interval, bool) {
	sp, ok := u.Spreads[metric]
	if !ok || !(v > 0) || math.IsInf(v, 0) {
		return Interval{}, false
	}
	var x2 float64
	for _, x := range u.Extrapolations {
		x2 += x.Sigma * x.Sigma
	}
	h80 := math.Sqrt(sp.H80*sp.H80 + z80*z80*x2)
	h95 := math.Sqrt(sp.H95*sp.H95 + z95*z95*x2)
	c := v * math.Exp(-sp.Bias) // measured = simulated × e^(−r)
	return Interval{Lo80: c * math.Exp(-h80), Hi80: c * math.Exp(h80), Lo95: c * math.Exp(-h95), Hi95: c * math.Exp(h95)}, true
}

// Metrics lists the metrics with a spread, sorted.
func (u Uncertainty) Metrics() []string {
	out := make([]string, 0, len(u.Spreads))
	for m := range u.Spreads {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// GPUGeneration is the card's architecture, lower-case ("" unknown).
func GPUGeneration(g GPUCard) string { return strings.ToLower(g.Generation) }
