package space

import (
	"context"
	"os"
	"strings"
	"testing"
)

// A file that names no sampler gets the prior's partner, or the best
// prior-free one with prior = "none"; one that names a sampler keeps it
// whatever the prior.
func TestDefaultSamplerFollowsThePrior(t *testing.T) {
	base, err := os.ReadFile("testdata/good/minimal.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		study     string
		want      string
		defaulted bool
	}{
		{``, "motpe", true},
		{`prior = "sim"`, "motpe", true},
		{`prior = "none"`, "headroom", true},
		{`prior = "none"` + "\n" + `sampler = "motpe"`, "motpe", false},
		{`sampler = "random"`, "random", false},
	} {
		src := strings.Replace(string(base), `name = "minimal"`, `name = "minimal"`+"\n"+tc.study, 1)
		sp, err := Parse(context.Background(), "minimal.toml", src, testOptions())
		if err != nil {
			t.Fatalf("%q: %v", tc.study, err)
		}
		if sp.Study.Sampler != tc.want || sp.Study.SamplerDefaulted != tc.defaulted {
			t.Errorf("%q: sampler %q (defaulted %v), want %q (%v)", tc.study, sp.Study.Sampler, sp.Study.SamplerDefaulted, tc.want, tc.defaulted)
		}
	}
}
