package main

import "testing"

func TestGCPercentLeavesTheUsersGOGC(t *testing.T) {
	for _, c := range []struct {
		gogc string
		want int
		set  bool
	}{
		{"", defaultGCPercent, true},
		{"100", 0, false},
		{"off", 0, false},
		{"nonsense", 0, false}, // the runtime's to judge
	} {
		got, set := gcPercent(func(k string) string {
			if k == "GOGC" {
				return c.gogc
			}
			return ""
		})
		if got != c.want || set != c.set {
			t.Errorf("GOGC=%q: %d, %v; want %d, %v", c.gogc, got, set, c.want, c.set)
		}
	}
}
