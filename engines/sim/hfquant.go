package sim

import (
	"math"
	"strconv"
	"strings"
)

// hfQuant is a checkpoint's quantization_config: the keys AutoAWQ, GPTQ,
// FP8 (DeepSeek, fbgemm), ModelOpt, bitsandbytes and compressed-tensors
// (llm-compressor, e.g. RedHatAI's -FP8-dynamic and -quantized.w4a16)
// write.
type hfQuant struct {
	Method    string `json:"quant_method"`
	Bits      int    `json:"bits"`
	WBit      int    `json:"w_bit"`
	GroupSize int    `json:"group_size"`
	QGroup    int    `json:"q_group_size"`
	QuantAlgo string `json:"quant_algo"` // ModelOpt: FP8, NVFP4, W4A16_AWQ
	Load4Bit  bool   `json:"load_in_4bit"`
	Load8Bit  bool   `json:"load_in_8bit"`
	// ConfigGroups are compressed-tensors' schemes; the widest weight
	// scheme decides (a checkpoint quantises its big Linear layers alike).
	ConfigGroups map[string]struct {
		Weights *struct {
			NumBits   int    `json:"num_bits"`
			Type      string `json:"type"`
			Strategy  string `json:"strategy"`
			GroupSize int    `json:"group_size"`
		} `json:"weights"`
	} `json:"config_groups"`
}

// weights is the checkpoint's weight type and, for integer and FP4
// formats, its mean bits per parameter: quantised Linear weights with
// their scales (and zero points) per group, embeddings and the LM head
// left in 16 bits as the quantisers leave them. FP8 and BF16 need no
// bits: the simulator stores them at 1 and 2 bytes.
func (q *hfQuant) weights(total, emb float64) (dtype string, bits float64) {
	if q == nil {
		return "bf16", 0
	}
	qbits, group, kind := q.scheme()
	switch {
	case kind == "" || qbits <= 0 || qbits >= 16:
		return "bf16", 0
	case kind == "float" && qbits == 8:
		return "fp8", 0
	}
	perWeight := float64(qbits)
	if group > 0 && group <= 1<<20 {
		perWeight += q.scaleBits(kind, qbits) / float64(group)
	}
	bits = (perWeight*(total-emb) + 16*emb) / total
	dtype = "int" + strconv.Itoa(qbits)
	if kind == "float" {
		dtype = "fp" + strconv.Itoa(qbits)
	}
	return dtype, math.Round(bits*1000) / 1000
}

// scaleBits is the scale (and zero point) storage per quantisation
// group: FP16 scales with packed zeros for AWQ/GPTQ, an 8-bit scale for
// the FP4 formats.
func (q *hfQuant) scaleBits(kind string, qbits int) float64 {
	if kind == "float" {
		return 8
	}
	return 16 + float64(qbits)
}

// scheme is the weight bits, group size (0: per channel) and kind
// ("int" or "float"; "" when the config says nothing usable).
func (q *hfQuant) scheme() (bits, group int, kind string) {
	m := strings.ToLower(q.Method)
	switch {
	case m == "fp8" || m == "fbgemm_fp8" || m == "ptpc_fp8":
		return 8, 0, "float"
	case m == "mxfp4":
		return 4, 32, "float"
	case m == "modelopt":
		return modelOptScheme(q.QuantAlgo)
	case m == "bitsandbytes":
		if q.Load4Bit {
			return 4, 64, "int"
		}
		if q.Load8Bit {
			return 8, 0, "int"
		}
		return 0, 0, ""
	case m == "compressed-tensors":
		return q.compressedScheme()
	}
	// AWQ, GPTQ, AutoRound and their Marlin spellings: int bits per group.
	bits = max(q.Bits, q.WBit)
	if bits == 0 {
		return 0, 0, ""
	}
	group = max(q.GroupSize, q.QGroup, 0)
	return bits, group, "int"
}

func modelOptScheme(algo string) (bits, group int, kind string) {
	switch strings.ToUpper(algo) {
	case "FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO":
		return 8, 0, "float"
	case "NVFP4":
		return 4, 16, "float"
	case "W4A16_AWQ", "W4A8_AWQ":
		return 4, 128, "int"
	}
	return 0, 0, ""
}

func (q *hfQuant) compressedScheme() (bits, group int, kind string) {
	for _, g := range q.ConfigGroups {
		w := g.Weights
		if w == nil || w.NumBits <= bits {
			continue
		}
		bits, kind = w.NumBits, w.Type
		group = 0
		if w.Strategy == "group" || w.Strategy == "tensor_group" {
			group = w.GroupSize
		}
	}
	if kind != "float" && kind != "int" {
		return 0, 0, ""
	}
	return bits, group, kind
}
