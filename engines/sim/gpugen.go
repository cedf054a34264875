package sim

// Achievable fractions of the datasheet per GPU generation (issue 45,
// "GPU generations" in docs/sim.md). The coefficients are inverse
// efficiencies fitted on H100s (every calibration run): on another
// generation a kernel reaches another share of its card's datasheet, so
// the vLLM model divides by the datasheet × that generation's measured
// share ÷ Hopper's. Each share is a public measurement, reproduced by
// TestGenerationFractionsReproduceCitedFigures; a generation without a
// measurement takes Hopper's (ratio 1), never a guess.

// genFraction is one generation's measured share of its datasheet.
type genFraction struct {
	// hbm: the best read-stream bandwidth ÷ the datasheet's (weights
	// and KV are read, not written, by a decode step).
	hbm float64
	// bf16, fp8: the maximum achievable dense matmul FLOP/s ÷ the
	// datasheet's; 0 = not measured.
	bf16, fp8 float64
	// attn: the best FlashAttention forward's share of the BF16 peak
	// (vLLM runs FlashAttention 3 on Hopper, 2 elsewhere).
	attn float64
}

// genFractions by generation.
//
// HBM: the "read" kernel of RRZE-HPC/gpu-benches' gpu-stream (sum =
// A[i]; the highest of its occupancy scan), gpu-stream/*.txt of
// github.com/RRZE-HPC/gpu-benches: A100-SXM4-80GB 1776 GB/s of 2039
// (0.871), H100 PCIe 1942 of 2000 (0.971), L40 (AD102 with the L40S's
// 864 GB/s GDDR6) 845 of 864 (0.978). Its GH200 row (HBM3, 2775 of
// 4000) is not used: that benchmark caps each SM at two thread blocks,
// which leaves HBM3's longer latency uncovered (its triad, with four
// streams in flight, reaches 3783). No Blackwell row: Hopper's.
//
// Matmul: the Maximum Achievable Matmul FLOPS tables of
// github.com/stas00/ml-engineering (compute/accelerator/README.md,
// mean of 100 iterations at each accelerator's best shape, PyTorch):
// BF16 A100 SXM 271.2 of 312 (0.869), H100 SXM 794.5 of 989 (0.803),
// B200 1745.0 of 2250 (0.776); FP8 H100 SXM 1402.6 of 1979 (0.709),
// B200 3432.5 of 4500 (0.763). That table has no Ada row: the L40S's BF16
// share is from github.com/zzc0721/torch-performance-test-data
// (database.md: square torch.matmul, 1024 to 10240, the best size):
// 269.15 of 362 (0.744), on the same scale as the MAMF rows (its H100
// rows, 797.5 and 783.7 of 989, 0.806 and 0.792; A100 SXM4 264.5, 0.848).
//
// Attention: FlashAttention-2 "reaching 50-73% of the theoretical
// maximum FLOPs/s on A100" (Dao, arXiv:2307.08691, abstract: the top,
// 0.73); FlashAttention-3 "up to 740 TFLOPs/s (75% utilization)" in BF16
// on H100 (Shah et al., arXiv:2407.08608, abstract: 0.75). No Ada or
// Blackwell figure: Hopper's.
var genFractions = map[string]genFraction{
	"ampere":    {hbm: 1776.0 / 2039, bf16: 271.2 / 312, attn: 0.73},
	"hopper":    {hbm: 1942.0 / 2000, bf16: 794.5 / 989, fp8: 1402.6 / 1979, attn: 0.75},
	"ada":       {hbm: 845.0 / 864, bf16: 269.15 / 362},
	"blackwell": {bf16: 1745.0 / 2250, fp8: 3432.5 / 4500},
}

// genRatio is how much of its datasheet g reaches where an H100 reaches
// 1 (the fitted coefficients' reference, BF16 kernels): bandwidth, BF16
// matmul, FP8 matmul (the FP8 peak's measured share ÷ Hopper's BF16
// share: FP8 matmuls reach a smaller share of their doubled peak) and
// prefill attention. Unknown generations and unmeasured entries take
// Hopper's share.
func genRatio(g GPUCard) (hbm, bf16, fp8, attn float64) {
	ref := genFractions["hopper"]
	f := genFractions[GPUGeneration(g)]
	if f.hbm == 0 {
		f.hbm = ref.hbm
	}
	if f.bf16 == 0 {
		f.bf16 = ref.bf16
	}
	if f.fp8 == 0 {
		f.fp8 = ref.fp8
	}
	if f.attn == 0 {
		f.attn = ref.attn
	}
	return f.hbm / ref.hbm, f.bf16 / ref.bf16, f.fp8 / ref.bf16, f.attn / ref.attn
}
