package space

import "testing"

func TestTrialGPUs(t *testing.T) {
	cases := []struct {
		expr   string
		cfg    Config
		want   int
		wantOK bool
	}{
		{"", Config{"tp": int64(4)}, 0, false},
		{"8", Config{"tp": int64(4)}, 8, true},
		{"tp * pp", Config{"tp": int64(4), "pp": int64(2)}, 8, true},
		{"tp * pp", Config{"tp": int64(4)}, 0, false},                // pp absent: the engine's count stands
		{"tp * pp", Config{"tp": int64(4), "pp": Default}, 0, false}, // "default" is unknown too
		{"tp / 8", Config{"tp": int64(4)}, 0, false},                 // half a GPU is not a count
		{"tp - 4", Config{"tp": int64(4)}, 0, false},                 // nor is zero
		{"gpus / tp", Config{"tp": int64(2)}, 4, true},               // target vars are known
		{"tp >= 2", Config{"tp": int64(4)}, 0, false},
	}
	for _, c := range cases {
		tg := Target{GPUs: 8, GPUsPerTrial: c.expr}
		got, ok := tg.TrialGPUs(c.cfg)
		if got != c.want || ok != c.wantOK {
			t.Errorf("%q on %v = %d, %v; want %d, %v", c.expr, c.cfg, got, ok, c.want, c.wantOK)
		}
	}
}
