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
