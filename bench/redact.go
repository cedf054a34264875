package bench

import "regexp"

// redacted stands in for a secret in every message bench stores.
const redacted = "[REDACTED]"

// Redact replaces every occurrence of each non-empty secret in s with
// [REDACTED], in any letter case. The load generator applies it, with the
// configured API key, to each error it records, because servers echo keys
// in error bodies ("invalid key sk-…"), some transformed (upper-cased in
// a normalised message); other packages that store server text can reuse
// it.
func Redact(s string, secrets ...string) string {
	for _, k := range secrets {
		if k != "" {
			s = foldPattern(k).ReplaceAllLiteralString(s, redacted)
		}
	}
	return s
}

// redactBytes is Redact on server bytes, before they are decoded or
// truncated (a truncation could otherwise keep half a key).
func redactBytes(b []byte, secrets ...string) []byte {
	for _, k := range secrets {
		if k != "" {
			b = foldPattern(k).ReplaceAllLiteral(b, []byte(redacted))
		}
	}
	return b
}

// foldPattern matches k in any letter case.
func foldPattern(k string) *regexp.Regexp { return regexp.MustCompile("(?i)" + regexp.QuoteMeta(k)) }
