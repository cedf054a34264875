package studies

import (
	"fmt"
	"math"
	"strings"
)

// longDuration is where a millisecond metric reads better in seconds or
// minutes: "511438 ms" is 8.5 min (issue 50).
const longDuration = 10_000

// FormatDuration writes a millisecond metric of 10 s or more in seconds,
// or in minutes from 2 min up, false for any other metric or value, which
// the caller writes as a number.
func FormatDuration(metric string, v float64) (string, bool) {
	if !strings.HasSuffix(metric, "_ms") || math.IsNaN(v) || math.Abs(v) < longDuration {
		return "", false
	}
	s := v / 1000
	if math.Abs(s) < 120 {
		return fmt.Sprintf("%.1f s", s), true
	}
	return fmt.Sprintf("%.1f min", s/60), true
}

// fmtMetric is fmtNum with a long duration in s or min.
func fmtMetric(metric string, v float64) string {
	if d, ok := FormatDuration(metric, v); ok {
		return d
	}
	return fmtNum(v)
}
