package lab

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestMatrixCheck(t *testing.T) {
	ok := Matrix{Seeds: 2, FirstSeed: 1, Trials: 10, Samplers: []string{"motpe", "random"}, MOSamplers: []string{"motpe"}}
	with := func(f func(*Matrix)) Matrix { m := ok; f(&m); return m }
	cases := []struct {
		name string
		m    Matrix
		want string // "" when the matrix runs
	}{
		{"runs", ok, ""},
		{"no mo-samplers skips the two-objective runs", with(func(m *Matrix) { m.MOSamplers = nil }), ""},
		{"no seeds", with(func(m *Matrix) { m.Seeds = 0 }), "--seeds and --trials must be positive"},
		{"no trials", with(func(m *Matrix) { m.Trials = -1 }), "--seeds and --trials must be positive"},
		{"fresh seeds", with(func(m *Matrix) { m.FirstSeed = 21 }), ""},
		{"a billion seeds", with(func(m *Matrix) { m.Seeds = 1_000_000_000 }), "--seeds 1000000000 and --trials 10: at most 1000 seeds"},
		{"a billion trials", with(func(m *Matrix) { m.Trials = 1_000_000_000 }), "--seeds 2 and --trials 1000000000: "},
		{"seed 0", with(func(m *Matrix) { m.FirstSeed = 0 }), "--first-seed 0: seeds are numbered from 1"},
		{"negative first seed", with(func(m *Matrix) { m.FirstSeed = -3 }), "--first-seed -3: "},
		{"no sampler", with(func(m *Matrix) { m.Samplers = nil }), "--samplers names no sampler"},
		{"unknown sampler", with(func(m *Matrix) { m.Samplers = []string{"motep"} }), "--samplers: "},
		{"confirm share run's default", with(func(m *Matrix) { m.Confirm = 0.1 }), ""},
		{"negative confirm share", with(func(m *Matrix) { m.Confirm = -0.1 }), "--confirm -0.1: a share between 0 and 0.5"},
		{"noise", with(func(m *Matrix) { m.NoiseCV = 0.05 }), ""},
		{"negative noise", with(func(m *Matrix) { m.NoiseCV = -1 }), "--noise -1: a coefficient of variation"},
		{"noise NaN", with(func(m *Matrix) { m.NoiseCV = math.NaN() }), "--noise NaN: "},
		{"confirm NaN", with(func(m *Matrix) { m.Confirm = math.NaN() }), "--confirm NaN: "},
		{"confirm share above half", with(func(m *Matrix) { m.Confirm = 0.6 }), "--confirm 0.6: "},
		{"held-out kind on the family", with(func(m *Matrix) { m.Perturbed = true; m.HeldOut = "threshold" }), ""},
		{"held-out without the family", with(func(m *Matrix) { m.HeldOut = "threshold" }), "--held-out threshold acts on the family's realities: give --perturbed too"},
		{"unknown held-out kind", with(func(m *Matrix) { m.Perturbed = true; m.HeldOut = "reversd" }), `--held-out: unknown held-out kind "reversd"; did you mean "reversed"?`},
		{"single-objective sampler on two objectives", with(func(m *Matrix) { m.MOSamplers = []string{"tpe"} }), "--mo-samplers: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.m.Check()
			var ue UsageError
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Check = %v, want nil", err)
			case c.want != "" && (!errors.As(err, &ue) || !strings.HasPrefix(err.Error(), c.want)):
				t.Errorf("Check = %v, want a UsageError starting %q", err, c.want)
			}
		})
	}
}
