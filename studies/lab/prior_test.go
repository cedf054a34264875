package lab

import (
	"context"
	"math/rand"
	"testing"
)

// The screening benchmark keeps the full one's ranking where the prior
// needs it, near the top: of 24 random GLM-5.2 configs, the full
// simulation's best is among the screening's best three, and the two
// rankings agree overall.
func TestScreeningKeepsTheRanking(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 48 GLM-5.2 benchmarks")
	}
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	sp.Objectives = sp.Objectives[:1]
	p := newOraclePrior(NewOracle(sp), sp)
	rng := rand.New(rand.NewSource(3))
	var full, fast []float64
	for len(full) < 24 {
		c := sp.WithTargetEngine(sp.Sample(rng))
		v, ok := p.Predict(context.Background(), c)
		if sp.Check(c) != nil || !ok {
			continue
		}
		s, sok := p.Screen(context.Background(), c)
		if !sok {
			t.Fatalf("%s runs in full but not when screened", c.Summary())
		}
		full, fast = append(full, v[0]), append(fast, s[0])
	}
	best := 0
	for i := range full {
		if full[i] > full[best] {
			best = i
		}
	}
	above := 0
	for i := range fast {
		if fast[i] > fast[best] {
			above++
		}
	}
	if above > 2 {
		t.Errorf("the full best ranks %d-th by screening, want among the top 3", above+1)
	}
	if tau := kendall(full, fast); tau < 0.7 {
		t.Errorf("Kendall τ(full, screening) = %.2f, want ≥ 0.7", tau)
	}
}

// kendall is the share of concordant minus discordant pairs.
func kendall(x, y []float64) float64 {
	var c, n float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			n++
			switch s := (x[i] - x[j]) * (y[i] - y[j]); {
			case s > 0:
				c++
			case s < 0:
				c--
			}
		}
	}
	return c / n
}
