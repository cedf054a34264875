package bench

import "strings"

// redacted stands in for a secret in every message bench stores.
const redacted = "[REDACTED]"

// Redact replaces every occurrence of each non-empty secret in s with
// [REDACTED]. The load generator applies it, with the configured API key,
// to each error it records, because servers echo keys in error bodies
// ("invalid key sk-…"); other packages that store server text can reuse it.
func Redact(s string, secrets ...string) string {
	for _, k := range secrets {
		if k != "" {
			s = strings.ReplaceAll(s, k, redacted)
		}
	}
	return s
}
