package space

import (
	"math"
	"math/rand"
)

// Random draws one value of the knob's domain.
func (p Param) Random(rng *rand.Rand) any {
	switch p.Kind {
	case Categorical:
		return p.Values[rng.Intn(len(p.Values))]
	case Int:
		if p.Log {
			x := math.Exp(math.Log(p.Low) + rng.Float64()*(math.Log(p.High+1)-math.Log(p.Low)))
			return int64(math.Min(math.Floor(x), p.High))
		}
		step := math.Max(p.Step, 1)
		n := int64(math.Floor((p.High-p.Low)/step + 1e-9))
		return int64(p.Low) + rng.Int63n(n+1)*int64(step)
	}
	if p.Log {
		return math.Exp(math.Log(p.Low) + rng.Float64()*(math.Log(p.High)-math.Log(p.Low)))
	}
	if p.Step > 0 {
		n := int64(math.Floor((p.High-p.Low)/p.Step + 1e-9))
		return roundTo(p.Low+float64(rng.Int63n(n+1))*p.Step, p.Step)
	}
	return p.Low + rng.Float64()*(p.High-p.Low)
}
