package objective

import (
	"maps"

	"github.com/servetune/servetune/bench"
)

// scoreReplies keeps a quality profile's replies in res and puts its
// quality metrics (bench.Quality) in res.Metrics, for withQuality to
// merge with the benchmark's own.
func scoreReplies(t Trial, res *Result, p bench.Profile, out bench.Result) {
	plan, err := p.Plan()
	if err != nil {
		return // the run planned the same profile: it cannot fail here
	}
	replies := bench.Replies(plan, out.Records)
	if res.Replies == nil {
		res.Replies = map[string][]string{}
	}
	res.Replies[p.Name] = replies
	q := bench.Quality(plan, replies, t.BaselineReplies[p.Name])
	if t.IsBaseline {
		q[bench.BaselineAgreement] = 1
	}
	res.Metrics[p.Name] = q
}

// withQuality adds quality metrics to a profile's benchmark metrics.
func withQuality(v, quality map[string]float64) map[string]float64 {
	if len(quality) == 0 {
		return v
	}
	out := maps.Clone(v)
	maps.Copy(out, quality)
	return out
}
