package search

import (
	"math"

	"github.com/servetune/servetune/space"
)

// A knob value's internal (float) scale, shared by the samplers that
// model knobs as numbers: motpe's Parzen estimators and goptuna's
// distributions. A categorical value is its index, a numeric value its
// number.

// Internal is the knob value v on the internal scale.
func Internal(p space.Param, v any) float64 {
	if p.Kind == space.Categorical {
		return float64(CategoryIndex(p, v))
	}
	f, _ := space.Number(v, true)
	return f
}

// CategoryIndex is the index of a categorical knob's value v (0 when v is
// not one of its values).
func CategoryIndex(p space.Param, v any) int {
	for i, c := range p.Values {
		if space.FormatValue(c) == space.FormatValue(v) {
			return i
		}
	}
	return 0
}

// RoundStep removes float drift (0.7 + 3*0.05) so equal configs have equal keys.
func RoundStep(x, step float64) float64 {
	digits := math.Max(0, math.Ceil(-math.Log10(step))+2)
	m := math.Pow(10, digits)
	return math.Round(x*m) / m
}
