package sim

import (
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

// The all-reduce model reproduces the microbenchmark it cites: the custom
// all-reduce on H100 (sglang PR #2904, "custom allreduce" table, float32
// tensors of 512 … 1M elements, TP 2/4/8), each row within 20%, and the
// NCCL PCIe figure of vllm issue #50576 (8 KB on 8 GPUs, 56.9 µs).
func TestAllReduceReproducesCitedFigures(t *testing.T) {
	const h100Link = 450e9
	sizes := []float64{512, 4096, 32768, 262144, 524288, 1048576} // float32 elements
	measuredUS := map[int][]float64{
		2: {3.7, 3.9, 4.5, 7.9, 12.5, 19.9},
		4: {4.8, 3.7, 4.8, 13.9, 20.2, 31.1},
		8: {5.9, 5.7, 7.8, 16.7, 22.1, 33.8},
	}
	for n, row := range measuredUS {
		for i, want := range row {
			c := allReduceCost(4*sizes[i], n, true)
			got := (c.latency + c.linkBytes/h100Link) * 1e6
			if math.Abs(got/want-1) > 0.2 {
				t.Errorf("TP%d, %g float32: %.1f µs, cited %.1f µs", n, sizes[i], got, want)
			}
		}
	}
	c := allReduceCost(8192, 8, false)
	if got := (c.latency + c.linkBytes/(32e9)) * 1e6; math.Abs(got/56.9-1) > 0.05 {
		t.Errorf("8 KB on 8 PCIe GPUs: %.1f µs, cited 56.9 µs", got)
	}
}

// vLLM's dispatch: one-shot at TP2 whatever the size and below 512 KiB
// (TP4) or 256 KiB (TP8), two-shot above, NCCL's ring past the 8 MiB
// buffer, over PCIe and beyond 8 GPUs.
func TestAllReduceAlgorithmBySize(t *testing.T) {
	for _, c := range []struct {
		msg    float64
		n      int
		nvlink bool
		want   arAlgo
	}{
		{4 << 20, 2, true, arOneShot}, {256 << 10, 4, true, arOneShot}, {512 << 10, 4, true, arTwoShot},
		{128 << 10, 8, true, arOneShot}, {256 << 10, 8, true, arTwoShot}, {8 << 20, 8, true, arRing},
		{64 << 10, 4, false, arRing}, {64 << 10, 16, true, arRing},
	} {
		if got := allReduceCost(c.msg, c.n, c.nvlink).algo; got != c.want {
			t.Errorf("%g bytes on %d GPUs (nvlink %v): algorithm %d, want %d", c.msg, c.n, c.nvlink, got, c.want)
		}
	}
}

// A decode all-reduce's latency barely grows with the TP degree (the
// one-shot kernel reads its peers in parallel); it is no longer a hop
// per peer: TP8 pays less than twice TP2, where the hop model paid 7×.
func TestAllReduceLatencyIsNotPerPeer(t *testing.T) {
	reduce := func(tp int, gpu string) float64 {
		t.Helper()
		s, err := resolve(DefaultCards(), space.Config{"engine": "vllm", "tp": int64(tp), "max_model_len": int64(4096)},
			space.Target{Engine: "vllm", Model: "Llama-3.1-70B", GPU: gpu, GPUs: tp})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := s.plan()
		if err != nil {
			t.Fatal(err)
		}
		f := newPerf(s, plan).vllmRank(rankLoad{decodeSeqs: 8, ctx: 8000}, 8)
		c := FittedVLLM() // the kernels' latency and the barrier's wait for the last rank
		return c[fReduce]*f[fReduce] + c[fSkew]*f[fSkew]
	}
	tp2, tp8 := reduce(2, "H100"), reduce(8, "H100")
	if !(tp8 > tp2 && tp8 < 2*tp2) {
		t.Errorf("decode all-reduce latency per step: TP2 %.3g s, TP8 %.3g s; want TP2 < TP8 < 2×TP2", tp2, tp8)
	}
	if pcie := reduce(4, "L40S"); !(pcie > 2*reduce(4, "H100")) {
		t.Errorf("TP4 over PCIe (NCCL ring, 6 steps) %.3g s, not above twice NVLink's custom all-reduce", pcie)
	}
}

// The barrier term: the last of n ranks arrives E[max of n standard
// normals] drift deviations after their mean (tabulated values 0.564,
// 1.029, 1.424 for 2, 4, 8; Blom's approximation within 5%), nothing on
// one GPU, growing with n.
func TestLastOfRanks(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64
	}{{1, 0}, {2, 0.564}, {4, 1.029}, {8, 1.424}} {
		if got := lastOfRanks(tc.n); math.Abs(got-tc.want) > 0.05*tc.want+1e-12 {
			t.Errorf("lastOfRanks(%d) = %.3f, want %.3f", tc.n, got, tc.want)
		}
	}
	for n := 2; n < 16; n++ {
		if lastOfRanks(n+1) <= lastOfRanks(n) {
			t.Errorf("lastOfRanks(%d) = %v not above lastOfRanks(%d) = %v", n+1, lastOfRanks(n+1), n, lastOfRanks(n))
		}
	}
}
