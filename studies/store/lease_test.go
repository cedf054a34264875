package store

import (
	"testing"
	"time"
)

func TestExpired(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		until string
		want  bool
	}{
		{stamp(now.Add(time.Second)), false},
		{stamp(now), true},
		{stamp(now.Add(-time.Nanosecond)), true},
		{"garbage", true},
		{"", true},
	} {
		if got := expired(c.until, now); got != c.want {
			t.Errorf("expired(%q) = %v, want %v", c.until, got, c.want)
		}
	}
}
