package space

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestSLOReachesEveryProfile(t *testing.T) {
	sp, err := Load(context.Background(), "testdata/good/slo.toml", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	chat, balanced := sp.Profiles[0], sp.Profiles[1]
	// The profile's own SLO wins; the study's fills the others.
	if chat.SLO == nil || chat.SLO.TTFTMs != 500 || chat.SLO.TPOTMs != 0 {
		t.Errorf("chat SLO = %+v, want its own ttft 500", chat.SLO)
	}
	if balanced.SLO == nil || balanced.SLO.TTFTMs != 2000 || balanced.SLO.TPOTMs != 50 {
		t.Errorf("balanced SLO = %+v, want the study's", balanced.SLO)
	}
	if chat.SearchRate == nil || chat.SearchRate.Attainment != 0.99 || chat.SearchRate.High != 64 {
		t.Errorf("chat search_rate = %+v", chat.SearchRate)
	}
	guard := sp.Constraints[1]
	if !guard.Relative || guard.Bound != 0.95 || guard.Against(1000).Bound != 950 || guard.Against(1000).Relative {
		t.Errorf("guard = %+v, against 1000 = %+v", guard, guard.Against(1000))
	}
	if c := sp.Constraints[2]; !c.Relative || c.Bound != 1.1 || c.Op != "<=" {
		t.Errorf("baseline*1.1 = %+v", c)
	}
}

func TestParseConstraint(t *testing.T) {
	cases := []struct {
		src  string
		want string // metric op bound relative, or "error"
	}{
		{"p99_ttft_ms <= 2000", "p99_ttft_ms <= 2000 false"},
		{"total_tps >= 0.95 * baseline", "total_tps >= 0.95 true"},
		{"total_tps>=baseline*0.9", "total_tps >= 0.9 true"},
		{"mean_tpot_ms < baseline", "mean_tpot_ms < 1 true"},
		{"total_tps >= -1 * baseline", "error"},
		{"total_tps >= 0.9 * 2", "error"},
		{"total_tps >= 0.9 * baseline * 2", "error"},
		{"total_tps >= baseline_tps", "error"},
		{"total_tps >= inf * baseline", "error"},
	}
	for _, tc := range cases {
		c, err := parseConstraint(tc.src)
		got := "error"
		if err == nil {
			got = fmt.Sprintf("%s %s %v %v", c.Metric, c.Op, c.Bound, c.Relative)
		}
		if got != tc.want {
			t.Errorf("parseConstraint(%q) = %s, want %s", tc.src, got, tc.want)
		}
	}
}

// FuzzConstraint: any text either fails to parse or gives a constraint
// with a plain metric name and a finite bound (a positive factor when
// relative) that reads back the same when written out again.
func FuzzConstraint(f *testing.F) {
	for _, s := range []string{"p99_ttft_ms <= 2000", "total_tps >= 0.95 * baseline", "x>baseline*1e3", "a < baseline", "a <= nan", "<= 1", "a >= * baseline"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := parseConstraint(src)
		if err != nil {
			return
		}
		if c.Metric == "" || strings.ContainsAny(c.Metric, " <>=") || math.IsNaN(c.Bound) || math.IsInf(c.Bound, 0) || c.Relative && c.Bound <= 0 {
			t.Fatalf("parseConstraint(%q) = %+v", src, c)
		}
		again := fmt.Sprintf("%s %s %v", c.Metric, c.Op, c.Bound)
		if c.Relative {
			again += " * baseline"
		}
		c2, err := parseConstraint(again)
		if err != nil || c2.Metric != c.Metric || c2.Op != c.Op || c2.Bound != c.Bound || c2.Relative != c.Relative {
			t.Fatalf("%q parsed as %+v, written out as %q, read back as %+v (%v)", src, c, again, c2, err)
		}
	})
}

// A bound no metric can meet — every metric is zero or more — rules out
// every trial; a bound some value can meet, or a relative one, does not.
func TestConstraintUnsatisfiable(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"p99_ttft_ms <= -5", true},
		{"p99_ttft_ms < 0", true},
		{"failed <= 0", false},
		{"p99_ttft_ms < 0.5", false},
		{"total_tps >= -5", false},
		{"mean_tpot_ms < baseline", false},
		{"slo_attainment >= 2", true},
		{"slo_attainment > 1", true},
		{"stage1_answer_accuracy >= 1.01", true},
		{"slo_attainment >= 1", false},
		{"baseline_agreement > 0.99", false},
		{"total_tps >= 2", false},
		{"stagex_slo_attainment >= 2", false},
	} {
		c, err := parseConstraint(tc.src)
		if err != nil {
			t.Fatalf("parseConstraint(%q): %v", tc.src, err)
		}
		if got := c.Unsatisfiable(); got != tc.want {
			t.Errorf("%q: Unsatisfiable() = %v, want %v", tc.src, got, tc.want)
		}
	}
}
