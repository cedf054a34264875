package suggest

import (
	"fmt"
	"strings"
)

// Closest is the candidate nearest to word, if it is near enough to be a
// typo of it: within an edit distance of a third of the word's length
// (at least 1, at most 3), case ignored; none when word is itself a
// candidate. Ties go to the earliest
// candidate, so callers list candidates in a stable order.
func Closest(word string, candidates []string) (string, bool) {
	limit := min(max(1, len([]rune(word))/3), 3)
	best, bestD := "", limit+1
	w := strings.ToLower(word)
	for _, c := range candidates {
		if c == word {
			return "", false // not a typo: the word is accepted as it is
		}
		if d := Distance(w, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// Hint is `; did you mean "x"?` for the closest candidate, or "".
func Hint(word string, candidates []string) string {
	if c, ok := Closest(word, candidates); ok {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return ""
}

// Distance is the Levenshtein distance between a and b counted in runes,
// with a transposition of two adjacent runes counting as one edit
// (optimal string alignment): "max_runnign" is one edit from
// "max_running".
func Distance(a, b string) int {
	r, s := []rune(a), []rune(b)
	prev2 := make([]int, len(s)+1)
	prev := make([]int, len(s)+1)
	cur := make([]int, len(s)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(s); j++ {
			cost := 1
			if r[i-1] == s[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && r[i-1] == s[j-2] && r[i-2] == s[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(s)]
}
