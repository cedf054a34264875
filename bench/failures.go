package bench

// DominantError summarises why requests failed: the failure class with the
// most failed requests (on a tie, the class that sorts first), the first
// message recorded for it and how many requests failed that way. count is
// 0 when no request failed. A report can then say "512 of 512 requests
// failed (http: HTTP 400: prompt too long)" instead of listing messages.
func (m Metrics) DominantError() (class ErrorClass, example string, count int) {
	for c, n := range m.FailedByClass {
		if n > count || n == count && c < class {
			class, count = c, n
		}
	}
	return class, m.ErrorExamples[class], count
}

// DominantMessage is the failure message most requests of recs failed
// with (on a tie, the one that sorts first) and how many failed with
// it; warm-up and aborted requests are not counted. A simulator's
// records carry no failure class, only a message naming the cause (a
// cache too small, a stall, max_duration), so a report counts them by
// message instead of by class.
func DominantMessage(recs []Record) (msg string, count int) {
	by := map[string]int{}
	for _, r := range recs {
		if r.Success || r.Warmup || r.Class == ClassAborted {
			continue
		}
		by[r.Error]++
	}
	for m, n := range by {
		if n > count || n == count && m < msg {
			msg, count = m, n
		}
	}
	return msg, count
}
