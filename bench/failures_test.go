package bench

import "testing"

func TestDominantError(t *testing.T) {
	rec := func(class ErrorClass, msg string) Record { return Record{Class: class, Error: msg} }
	cases := []struct {
		name    string
		recs    []Record
		class   ErrorClass
		example string
		count   int
	}{
		{"nothing failed", []Record{{Success: true}}, "", "", 0},
		{"most frequent class wins", []Record{rec(ClassTimeout, "stalled"), rec(ClassHTTP, "HTTP 400: prompt too long"),
			rec(ClassHTTP, "HTTP 400: other"), {Success: true}}, ClassHTTP, "HTTP 400: prompt too long", 2},
		{"tie goes to the first class by name", []Record{rec(ClassTimeout, "stalled"), rec(ClassHTTP, "HTTP 503")},
			ClassHTTP, "HTTP 503", 1},
		{"aborted requests are not failures", []Record{rec(ClassAborted, "deadline"), rec(ClassStream, "cut")},
			ClassStream, "cut", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			class, example, count := Summarize(tc.recs, 0, SummaryOptions{}).DominantError()
			if class != tc.class || example != tc.example || count != tc.count {
				t.Errorf("DominantError() = %q, %q, %d; want %q, %q, %d", class, example, count, tc.class, tc.example, tc.count)
			}
		})
	}
}

func TestDominantMessageCountsFailuresByMessage(t *testing.T) {
	recs := []Record{
		{Success: true},
		{Error: "b"}, {Error: "a"}, {Error: "b"},
		{Error: "a", Warmup: true}, {Error: "a", Class: ClassAborted}, {Error: "a", Class: ClassAborted},
	}
	if msg, n := DominantMessage(recs); msg != "b" || n != 2 {
		t.Fatalf("got %q × %d, want b × 2 (warm-up and aborted requests not counted)", msg, n)
	}
	if msg, n := DominantMessage(recs[:3]); msg != "a" || n != 1 {
		t.Fatalf("tie: got %q × %d, want a × 1", msg, n)
	}
	if _, n := DominantMessage(recs[:1]); n != 0 {
		t.Fatalf("no failure: count %d", n)
	}
}
