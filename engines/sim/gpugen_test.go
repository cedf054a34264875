package sim

import (
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

// Each generation's share is its source's own arithmetic (gpugen.go):
// RRZE gpu-stream read bandwidth ÷ the datasheet, the MAMF tables'
// efficiency column, the FlashAttention abstracts.
func TestGenerationFractionsReproduceCitedFigures(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"A100-80GB read stream (1776 of 2039 GB/s)", genFractions["ampere"].hbm, 0.871},
		{"H100 PCIe read stream (1942 of 2000)", genFractions["hopper"].hbm, 0.971},
		{"L40 read stream (845 of 864)", genFractions["ada"].hbm, 0.978},
		{"A100 SXM BF16 MAMF (86.9%)", genFractions["ampere"].bf16, 0.869},
		{"H100 SXM BF16 MAMF (80.3%)", genFractions["hopper"].bf16, 0.803},
		{"B200 BF16 MAMF (77.6%)", genFractions["blackwell"].bf16, 0.776},
		{"L40S BF16 matmul (269.15 of 362)", genFractions["ada"].bf16, 0.744},
		{"H100 SXM FP8 MAMF (70.9%)", genFractions["hopper"].fp8, 0.709},
		{"B200 FP8 MAMF (76.3%)", genFractions["blackwell"].fp8, 0.763},
		{"FlashAttention-2 on A100 (73%)", genFractions["ampere"].attn, 0.73},
		{"FlashAttention-3 on H100 (75%)", genFractions["hopper"].attn, 0.75},
	} {
		if math.Abs(c.got-c.want) > 0.0006 {
			t.Errorf("%s: %.4f, cited %.3f", c.name, c.got, c.want)
		}
	}
	// An H100 is the reference: every ratio 1 but FP8's, whose matmuls
	// reach 70.9% of their peak where BF16's reach 80.3%.
	h, b, f, a := genRatio(GPUCard{Generation: "hopper"})
	if h != 1 || b != 1 || a != 1 || math.Abs(f-0.709/0.803) > 0.001 {
		t.Errorf("hopper ratios %.3f %.3f %.3f %.3f, want 1 1 0.883 1", h, b, f, a)
	}
	// Unknown generations take Hopper's shares.
	if h, b, f, a := genRatio(GPUCard{Generation: "volta"}); h != 1 || b != 1 || a != 1 || math.Abs(f-0.709/0.803) > 0.001 {
		t.Errorf("unknown generation ratios %.3f %.3f %.3f %.3f, want Hopper's", h, b, f, a)
	}
}

// A memory-bound decode step on an A100 or L40S streams at the cited
// read bandwidth's share of its datasheet, ÷ Hopper's that the fitted
// weights coefficient already carries: Llama-3.1-8B's weights at batch 1
// take datasheet time × weights × 0.971/0.871 on an A100 and
// × 0.971/0.978 on an L40S. A prefill-sized dense GEMM runs at the MAMF
// share: × 0.803/0.869 of the datasheet time on an A100.
func TestGenerationStepTimes(t *testing.T) {
	c := FittedVLLM()
	for _, g := range []struct {
		gpu          string
		hbmTBs, bf16 float64
		hbm, mm      float64 // cited shares
	}{
		{"A100-80GB", 2.04, 312, 0.871, 0.869},
		{"L40S", 0.864, 362, 0.978, 0.744},
		{"H100", 3.35, 989, 0.971, 0.803},
	} {
		s := resolveT(t, "Llama-3.1-8B", g.gpu, 1)
		plan, err := s.plan()
		if err != nil {
			t.Fatal(err)
		}
		pf := newPerf(s, plan)
		f := pf.vllmRank(rankLoad{decodeSeqs: 1, ctx: 1000}, 1)
		bytes := pf.rawDense
		want := bytes / (g.hbmTBs * 1e12 * g.hbm / 0.971) * c[fWeights]
		if got := c[fWeights] * f[fWeights]; math.Abs(got/want-1) > 0.002 {
			t.Errorf("%s batch-1 weights: %.3f ms, want %.3f ms (%.0f%% of %.2f TB/s)", g.gpu, got*1e3, want*1e3, 100*g.hbm, g.hbmTBs)
		}
		t.Logf("%s: Llama-3.1-8B weights at batch 1 %.2f ms (%.1f GB at %.0f GB/s achieved, × %.3f)", g.gpu, c[fWeights]*f[fWeights]*1e3,
			bytes/1e9, g.hbmTBs*1e3*g.hbm, c[fWeights])
		p := pf.vllmRank(rankLoad{prefill: 4096, prefillSeqs: 1, prefillCtx: 4096 * 2048}, 4096)
		wantLin := (pf.tokenFlop*4096 + pf.headFlop) / (g.bf16 * 1e12 * g.mm / 0.803)
		if math.Abs(p[fLinear]/wantLin-1) > 0.002 {
			t.Errorf("%s 4096-token prefill GEMMs: %.2f ms of datasheet-equivalent time, want %.2f", g.gpu, p[fLinear]*1e3, wantLin*1e3)
		}
		t.Logf("%s: 4096-token prefill GEMMs %.1f ms (%.0f TFLOP/s achieved, × %.2f)", g.gpu, c[fLinear]*p[fLinear]*1e3, g.bf16*g.mm, c[fLinear])
	}
}

// resolveT is model on tp GPUs of gpu under vLLM.
func resolveT(t *testing.T, model, gpu string, tp int) *setup {
	t.Helper()
	s, err := resolve(DefaultCards(), space.Config{"engine": "vllm", "tp": int64(tp), "max_model_len": int64(4096)},
		space.Target{Engine: "vllm", Model: model, GPU: gpu, GPUs: tp})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
