package space

import (
	"context"
	"strings"
	"testing"
)

func TestStudyRepeat(t *testing.T) {
	src := func(repeat string) string {
		return "[study]\nname = \"r\"\n" + repeat + "\n[target]\nmodel = \"m\"\ngpu = \"H100\"\nengine = \"vllm\"\n[[objectives]]\nmetric = \"total_tps\"\ndirection = \"maximize\"\n[params.max_running]\nvalues = [64, 128]\n"
	}
	for _, c := range []struct {
		line string
		want int
		err  string
	}{{"", 1, ""}, {"repeat = 3", 3, ""}, {"repeat = 0", 0, "study.repeat"}, {"repeat = -2", 0, "must be between 1 and 100"}, {"repeat = 1000", 0, "must be between 1 and 100"}} {
		sp, err := Parse(context.Background(), "r.toml", src(c.line), testOptions())
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one naming %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || sp.Study.Repeat != c.want {
			t.Errorf("%q: repeat %v, %v; want %d", c.line, sp, err, c.want)
		}
	}
}
