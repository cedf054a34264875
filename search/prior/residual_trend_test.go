package prior

import (
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestInterpolate(t *testing.T) {
	cases := []struct {
		name   string
		levels []level
		x      float64
		want   float64
	}{
		{"between two levels", []level{{0.85, -0.2}, {0.7, 0.4}}, 0.75, 0.2},
		{"the nearest level on each side", []level{{0.5, 9}, {0.7, 0.4}, {0.85, -0.2}, {0.95, 9}}, 0.8, 0},
		{"below every level", []level{{0.85, -0.2}, {0.7, 0.4}}, 0.6, 0},
		{"above every level", []level{{0.85, -0.2}, {0.7, 0.4}}, 0.9, 0},
		{"one level", []level{{0.85, -0.2}}, 0.75, 0},
		{"none", nil, 0.75, 0},
	}
	for _, c := range cases {
		if got := interpolate(c.levels, c.x); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: interpolate(%v) = %v, want %v", c.name, c.x, got, c.want)
		}
	}
}

func TestNumericKey(t *testing.T) {
	cases := []struct {
		in   string
		name string
		x    float64
		ok   bool
	}{
		{"mem_fraction=0.75", "mem_fraction", 0.75, true},
		{"max_running=512", "max_running", 512, true},
		{"chunked_prefill=default", "", 0, false},
		{"enable_dp_attention=true", "", 0, false},
		{"x=NaN", "", 0, false},
		{"novalue", "", 0, false},
	}
	for _, c := range cases {
		name, x, ok := numericKey(c.in)
		if ok != c.ok || (ok && (name != c.name || x != c.x)) {
			t.Errorf("numericKey(%q) = %q, %v, %v; want %q, %v, %v", c.in, name, x, ok, c.name, c.x, c.ok)
		}
	}
}

// A numeric knob value no trial had, bracketed by measured ones, is
// predicted on their trend (h200-is-b200's mem_fraction: the prior errs
// more the lower it is), not at the global mean.
func TestResidualInterpolatesAnUnmeasuredLevel(t *testing.T) {
	r := newResidual(1)
	at := func(f float64) space.Config { return space.Config{"mem_fraction": f, "engine": "sglang"} }
	r.add(0, at(0.85), 0.6)
	r.add(0, at(0.85), 0.6)
	r.add(0, at(0.7), 1.5)
	// mean 0.9; 0.85's deviation −0.3 shrunk by 2/(2+2), 0.7's +0.6 by
	// 1/(1+2); 0.75 lies two thirds of the way from 0.85 to 0.7.
	want := 0.9 + (-0.15 + (0.2+0.15)*2/3)
	if got := r.predict(0, at(0.75)); math.Abs(got-want) > 1e-9 {
		t.Errorf("predict(mem_fraction 0.75) = %v, want %v (the trend of 0.85 and 0.7)", got, want)
	}
	if got := r.predict(0, at(0.95)); math.Abs(got-0.9) > 1e-9 {
		t.Errorf("predict(mem_fraction 0.95) = %v, want the mean 0.9 (outside the measured range)", got)
	}
}
