package sim

import "math"

// The tensor-parallel all-reduce by algorithm and message size (issue 45).
// vLLM picks, per call, its custom all-reduce within an NVLink domain of
// at most 8 GPUs and messages under its 8 MiB buffer — one-shot (each GPU
// reads every peer's whole buffer) for small messages, two-shot
// (reduce-scatter then all-gather) above the thresholds of
// csrc/custom_all_reduce.cuh — and NCCL's ring otherwise (PCIe without
// peer access, more than 8 GPUs, large prefill messages). Each figure
// below is a public measurement, cited in docs/sim.md ("Communication")
// and reproduced by TestAllReduceReproducesCitedFigures.

// arAlgo names an all-reduce algorithm.
type arAlgo int

const (
	arOneShot arAlgo = iota // vLLM custom all-reduce, 1 stage
	arTwoShot               // vLLM custom all-reduce, 2 stages
	arRing                  // NCCL ring
)

const (
	// customARMaxBytes is vLLM's custom all-reduce buffer (max_size,
	// 8 MiB): larger messages go to NCCL.
	customARMaxBytes = 8 << 20
	// customARBusFrac is the share of the per-GPU NVLink bandwidth the
	// custom all-reduce's bytes move at: from the slopes of the H100
	// table of sglang PR #2904 ("custom allreduce") between 1 and 4 MiB
	// (TP2 one-shot 262 GB/s, TP4 and TP8 two-shot 274 and 322 GB/s of
	// link bytes, of 450).
	customARBusFrac = 0.6
	// ringNVLinkFrac is NCCL's ring bus bandwidth over NVLink without
	// NVLink SHARP: 230–250 GB/s on 8×A100 SXM (NVLink-3, 300 GB/s).
	ringNVLinkFrac = 0.8
	// ringPCIeFrac is NCCL's bus bandwidth over PCIe: 35–45 GB/s on
	// 8×H100 PCIe (Gen5 x16, 64 GB/s).
	ringPCIeFrac = 0.625
	// ringStepLatency is one ring step's latency (a ring all-reduce takes
	// 2(n−1) steps): NCCL's 8 KB all-reduce on 8×A800 over PCIe took
	// 56.9 µs, 14 steps (vllm issue #50576).
	ringStepLatency = 56.9e-6 / 14
)

// customARLatency is the one-shot custom all-reduce's small-message
// latency on H100 by TP degree, as a CUDA graph replays it: the mean of
// the 2 KiB and 16 KiB rows of the "custom allreduce" H100 table in
// sglang PR #2904 (float32 test tensors of 512 and 4096 elements): TP2
// 3.8 µs, TP4 4.25 µs, TP8 5.8 µs; TP6 interpolated. That kernel reads
// its input from registered buffers, as vLLM's does inside a CUDA graph;
// the same table's "vllm" column (9–10 µs) adds an eager copy of the
// input into the shared buffer, which graph replay does not pay.
var customARLatency = map[int]float64{2: 3.8e-6, 4: 4.25e-6, 6: 5.0e-6, 8: 5.8e-6}

// twoShotLatency is the two-shot kernel's (two barriers): the intercept
// of the same table's line through its 1, 2 and 4 MiB rows, where vLLM
// runs two-shot (TP4 8.2 µs, TP8 11.0 µs; TP6 interpolated).
var twoShotLatency = map[int]float64{4: 8.2e-6, 6: 9.6e-6, 8: 11.0e-6}

// arCost is one all-reduce: its latency (seconds at the cited figures)
// and the bytes each GPU moves over its link, at the algorithm's
// achievable share of the datasheet link (bytes ÷ frac, so that bytes
// over the raw link give the cited time).
type arCost struct {
	algo      arAlgo
	latency   float64
	linkBytes float64
}

// allReduceCost is the cost of all-reducing msg bytes over n GPUs, over
// NVLink or not.
func allReduceCost(msg float64, n int, nvlink bool) arCost {
	if n <= 1 {
		return arCost{}
	}
	nf := float64(n)
	lat, custom := customARLatency[n]
	if !nvlink || !custom || msg >= customARMaxBytes {
		frac := ringNVLinkFrac
		if !nvlink {
			frac = ringPCIeFrac
		}
		return arCost{algo: arRing, latency: 2 * (nf - 1) * ringStepLatency,
			linkBytes: 2 * (nf - 1) / nf * msg / frac}
	}
	if oneShot(msg, n) {
		return arCost{algo: arOneShot, latency: lat, linkBytes: (nf - 1) * msg / customARBusFrac}
	}
	return arCost{algo: arTwoShot, latency: twoShotLatency[n], linkBytes: 2 * (nf - 1) / nf * msg / customARBusFrac}
}

// oneShot is vLLM's choice between its kernels: one stage on two GPUs,
// and on more below 512 KiB (up to 4 GPUs) or 256 KiB (up to 8).
func oneShot(msg float64, n int) bool {
	return n == 2 || (n <= 4 && msg < 512<<10) || (n <= 8 && msg < 256<<10)
}

// lastOfRanks is how far, in standard deviations of one rank's drift
// between two all-reduces, the last of n ranks arrives after their mean:
// the expected maximum of n standard normals (Blom's approximation,
// Φ⁻¹((n − 0.375)/(n + 0.25)): 0.59 for 2, 1.03 for 4, 1.43 for 8). An
// all-reduce is a barrier: in a real step every rank waits there for the
// slowest, which a microbenchmark that starts its ranks together does not
// measure; it grows with the TP degree as the maximum does.
func lastOfRanks(n int) float64 {
	if n <= 1 {
		return 0
	}
	p := (float64(n) - 0.375) / (float64(n) + 0.25)
	return math.Sqrt2 * math.Erfinv(2*p-1)
}
