package sim

// Weight dtype and the GEMM kernels vLLM runs for it (issue 45, "MoE
// experts" in docs/sim.md). The fitted coefficients weights, experts,
// linear and expert_linear are inverse efficiencies of BF16 kernels
// (every dense calibration run is BF16); a checkpoint in another dtype
// runs other kernels, whose time per byte streamed and share of their
// own tensor peak differ from BF16's by a measured ratio. Each ratio is a
// public measurement, cited in docs/sim.md and reproduced by
// TestDtypeKernelReproducesCitedFigures: the fit then finds one BF16
// expert coefficient that the FP8 Llama-4-Scout runs and a BF16 MoE
// share, instead of an FP8 figure applied to every dtype.

// dtypeKernel is a weight dtype's kernel against BF16's: stream is its
// time per weight byte at decode (memory-bound) sizes ÷ BF16's. (Its
// share of its own tensor peak at prefill sizes is the generation's
// measured matmul share for that dtype, gpugen.go.)
type dtypeKernel struct {
	stream float64
}

// bf16Kernel is the reference: the fitted coefficients as they are.
var bf16Kernel = dtypeKernel{stream: 1}

// fp8W8A8Kernel is FP8 weights on FP8 tensor cores (Hopper, Ada,
// Blackwell) with per-token dynamic activation scales, the scheme of the
// calibration MoE (compressed-tensors FP8-dynamic). Stream: vLLM's
// bench_fp8_gemm on an H100 (vllm-project/vllm PR #49363, gemma-4-31B's
// N=12288 K=5376 at batch 1, the table's only row where the GEMM is
// purely memory-bound): 2.870 TFLOP/s in BF16 ("torch-bf16") and 4.733
// in FP8 with the activation quantisation included
// ("fp8-tensor-w-token-a"): half the bytes in 61% of the time, so
// 2 × 2.870/4.733 = 1.21 BF16's time per byte. The activation
// quantisation kernel and the scales are what the bytes alone do not
// count.
var fp8W8A8Kernel = dtypeKernel{stream: 2 * 2.870 / 4.733}

// weightOnlyKernel is a sub-16-bit checkpoint without tensor cores of
// its width (INT4 AWQ/GPTQ, FP8 on Ampere, INT8): vLLM's Marlin kernels
// dequantise in registers and run BF16 tensor cores. Stream: Marlin on
// an H100 (inclusionAI/humming PR #2, dense N=K=8192 at batch 1, posted
// by a vLLM maintainer): 2.30 TFLOP/s FP16 ("torch-w16a16"), 4.98 INT4
// ("marlin-w4a16"), 3.46 8-bit ("marlin-w8a16"): INT4 streams a quarter
// of the bytes in 46% of the time, 4 × 2.30/4.98 = 1.85 FP16's time per
// byte; 8-bit 2 × 2.30/3.46 = 1.33. The math runs on BF16 tensor
// cores. A 4-bit float checkpoint (NVFP4, MXFP4) takes the INT4 figure:
// no measurement of its kernels was found.
func weightOnlyKernel(bytesPerParam float64) dtypeKernel {
	if bytesPerParam >= 1 {
		return dtypeKernel{stream: 2 * 2.30 / 3.46}
	}
	return dtypeKernel{stream: 4 * 2.30 / 4.98}
}

// weightKernel is the kernel s's weights run in.
func weightKernel(s *setup) dtypeKernel {
	switch {
	case s.weightBytes >= 2:
		return bf16Kernel
	case s.fp8Compute:
		return fp8W8A8Kernel
	}
	return weightOnlyKernel(s.weightBytes)
}
