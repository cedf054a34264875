package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"max_runing", "max_running", 1},
		{"max_runnign", "max_running", 1},
		{"tp", "dp", 1},
		{"ab", "ba", 1},
		{"größe", "grösse", 2},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	knobs := []string{"tp", "dp", "ep", "max_running", "mem_fraction", "kv_cache_dtype"}
	for _, tc := range []struct {
		word string
		want string
	}{
		{"max_runing", "max_running"},
		{"MAX_RUNNING", "max_running"},
		{"mem_fracton", "mem_fraction"},
		{"kv_cache_type", "kv_cache_dtype"},
		{"tq", "tp"},   // short words allow one edit, the first candidate wins the tie
		{"xyz", ""},    // nothing close
		{"colour", ""}, // six letters allow two edits: none is that close
		{"tp", ""},     // the word itself is no suggestion
	} {
		got, ok := Closest(tc.word, knobs)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", tc.word, got, ok, tc.want)
		}
	}
	if h := Hint("valus", []string{"values", "low", "high"}); h != `; did you mean "values"?` {
		t.Errorf("Hint = %q", h)
	}
	if h := Hint("zzz", []string{"values"}); h != "" {
		t.Errorf("Hint with nothing close = %q", h)
	}
}
