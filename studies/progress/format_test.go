package progress

import (
	"testing"
	"time"
)

func TestFormatETA(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{2600 * time.Millisecond, "2.6s"},
		{2640 * time.Millisecond, "2.6s"},
		{1 * time.Second, "1.0s"},
		{450 * time.Millisecond, "0.5s"},
		// Never none while a trial is left: the floor is a tenth.
		{40 * time.Millisecond, "0.1s"},
		{0, "0.1s"},
		{9940 * time.Millisecond, "9.9s"},
		// From 10 s up, whole seconds as before.
		{9960 * time.Millisecond, "10s"},
		{12400 * time.Millisecond, "12s"},
		{83*time.Second + 600*time.Millisecond, "1m24s"},
	} {
		if got := Format(tc.d); got != tc.want {
			t.Errorf("Format(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
