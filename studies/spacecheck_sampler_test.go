package studies

import (
	"context"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/studydir"
)

func TestResumedSampler(t *testing.T) {
	for _, tc := range []struct {
		name  string
		study space.Study
		began string
		want  string
	}{
		{"named in the file", space.Study{Sampler: "random"}, "motpe", "random"},
		{"defaulted, began with another default", space.Study{Sampler: "headroom", SamplerDefaulted: true}, "motpe", "motpe"},
		{"defaulted, began with this one", space.Study{Sampler: "headroom", SamplerDefaulted: true}, "headroom", "headroom"},
		{"defaulted, from before the meta", space.Study{Sampler: "headroom", SamplerDefaulted: true}, "", legacySampler},
	} {
		if got := resumedSampler(tc.study, tc.began); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A prior-free study that names no sampler starts on the prior-free
// default and keeps the sampler it began with when resumed, one from
// before the default changed included.
func TestAResumedStudyKeepsTheSamplerItBeganWith(t *testing.T) {
	ctx := context.Background()
	d := studydir.Of(t.TempDir(), "unit")
	src := strings.Replace(studySource(5, ""), `sampler = "random"`, `prior = "none"`, 1)
	open := func() (*space.Space, *Session) {
		sp, err := space.Parse(ctx, "space.toml", src, testSpaceOptions())
		if err != nil {
			t.Fatal(err)
		}
		sess, err := OpenSession(ctx, d, sp, sessionOptions(t, src, false, 1))
		if err != nil {
			t.Fatal(err)
		}
		return sp, sess
	}
	sp, sess := open()
	if sp.Study.Sampler != space.DefaultSampler(space.PriorNone) {
		t.Errorf("new study: sampler %q", sp.Study.Sampler)
	}
	// A study created before the "sampler" meta existed.
	if err := sess.Store.SetMeta(ctx, "sampler", ""); err != nil {
		t.Fatal(err)
	}
	sess.Close()
	sp, sess = open()
	defer sess.Close()
	if sp.Study.Sampler != legacySampler {
		t.Errorf("resumed legacy study: sampler %q, want %q", sp.Study.Sampler, legacySampler)
	}
}
