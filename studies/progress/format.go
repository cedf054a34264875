package progress

import (
	"strconv"
	"time"
)

// Format writes a remaining time for people: to the tenth of a second
// under 10 s ("2.6s", "0.4s"), where whole seconds read 2s, 1s, then 0s
// with a trial still running (issue 50: every one of those a −100% miss),
// and to the second from 10 s up ("1m24s"), where tenths are noise. A
// time left is never written as none: under 0.1 s it reads 0.1s.
func Format(d time.Duration) string {
	tenths := max(d.Round(time.Second/10), time.Second/10)
	if tenths < 10*time.Second {
		return strconv.FormatFloat(tenths.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Round(time.Second).String()
}
