package export

import (
	"strings"

	"github.com/servetune/servetune/engines/sim"
)

// GPUProductLabel is the node label NVIDIA's GPU Feature Discovery (GFD,
// part of the GPU Operator and of k8s-device-plugin) sets to a node's GPU
// product: the name nvidia-smi reports with every space replaced by '-'
// (k8s-device-plugin internal/lm/resource.go, productLabel:
// strings.ReplaceAll(p, " ", "-")), so "NVIDIA H100 80GB HBM3" is
// NVIDIA-H100-80GB-HBM3.
const GPUProductLabel = "nvidia.com/gpu.product"

// gfdProducts is each built-in simulator GPU card (engines/sim/cards/
// gpus.toml) as GFD labels its nodes: the product name the card's
// "NVIDIA ..." alias gives, as nvidia-smi prints it on the card's form
// factor (the H100 and A100 cards are SXM boards; an H100 PCIe node is
// NVIDIA-H100-PCIe and needs [target.node_selector]). Published
// manifests pin the same values (nvidia.com/gpu.product:
// NVIDIA-A100-SXM4-80GB, NVIDIA-L40S, NVIDIA-H200).
var gfdProducts = map[string]string{
	"H100":      "NVIDIA-H100-80GB-HBM3",
	"H200":      "NVIDIA-H200",
	"A100-80GB": "NVIDIA-A100-SXM4-80GB",
	"L40S":      "NVIDIA-L40S",
	"B200":      "NVIDIA-B200",
}

// GPUProduct is the value of GPUProductLabel on nodes of GPU type gpu, as
// servetune names it (a card's name or alias, cards giving the user's
// cards over the built-in ones; nil: the built-in ones): ok is false for
// a type servetune cannot name GFD's value for. A name that is already
// the product name nvidia-smi prints ("NVIDIA ...") is taken as GFD
// takes it.
func GPUProduct(gpu string, cards *sim.Cards) (string, bool) {
	if cards == nil {
		cards = sim.DefaultCards()
	}
	if card, err := cards.GPU(gpu); err == nil {
		if v, ok := gfdProducts[card.Name]; ok {
			return v, true
		}
		for _, n := range append([]string{card.Name}, card.Aliases...) {
			if v, ok := productName(n); ok {
				return v, true
			}
		}
	}
	return productName(gpu)
}

// productName is a product name as nvidia-smi prints it, as GFD labels it.
func productName(n string) (string, bool) {
	n = strings.TrimSpace(n)
	if !strings.HasPrefix(n, "NVIDIA ") {
		return "", false
	}
	v := strings.ReplaceAll(n, " ", "-")
	return v, labelValueOK(v)
}

// labelValueOK: at most 63 characters of [A-Za-z0-9._-], beginning and
// ending alphanumeric.
func labelValueOK(v string) bool {
	if v == "" || len(v) > 63 || !alnum(v[0]) || !alnum(v[len(v)-1]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
