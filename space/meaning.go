package space

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/servetune/servetune/bench"
)

// meaning refuses what loads and runs but says nothing a study can act
// on, or can only end with no feasible trial: an objective named twice
// (the front of two equal axes is one axis, and a maximised and minimised
// copy leave every trial on it), two constraints on one metric and
// profile that no value meets together, the same constraint twice, and a
// traffic_rps no profile can turn into replicas. Each ran a whole study
// before (exit 0, or exit 3 after every trial).
func (d *decoder) meaning(s *Space) {
	first := ""
	if len(s.Profiles) > 0 {
		first = s.Profiles[0].Name
	}
	profileOf := func(p string) string { return cmp.Or(p, first) }
	seen := map[string]int{}
	for i, o := range s.Objectives {
		key := profileOf(o.Profile) + "\x00" + o.Metric
		if j, dup := seen[key]; dup {
			d.fail(fmt.Sprintf("objectives[%d].metric", i), "%s on profile %q is already objectives[%d] (line %d): an objective counts once; drop one", o.Metric, profileOf(o.Profile), j, d.line(fmt.Sprintf("objectives[%d]", j)))
			continue
		}
		seen[key] = i
	}
	for i, c := range s.Constraints {
		for j := range i {
			e := s.Constraints[j]
			if profileOf(c.Profile) != profileOf(e.Profile) || c.Metric != e.Metric || c.Relative != e.Relative {
				continue
			}
			path := fmt.Sprintf("constraints[%d].expr", i)
			switch {
			case c.Op == e.Op && c.Bound == e.Bound:
				d.fail(path, "%q repeats constraints[%d] (line %d); drop one", c.Src, j, d.line(fmt.Sprintf("constraints[%d]", j)))
			case !c.Relative && disjoint(c, e):
				d.fail(path, "%q and constraints[%d] %q (line %d) can never hold together: no value of %s meets both, so every trial would miss one", c.Src, j, e.Src, d.line(fmt.Sprintf("constraints[%d]", j)), c.Metric)
			}
		}
	}
	if s.Target.TrafficRPS > 0 && !slices.ContainsFunc(s.Profiles, func(p bench.Profile) bool { return p.SearchRate != nil }) {
		d.fail("target.traffic_rps", "needs a profile with search_rate: replicas are ceil(traffic_rps / max_rate_under_slo), and no profile of profiles.run measures that rate (docs/space.md, [target])")
	}
}

// disjoint says whether no value meets both absolute constraints a and b.
func disjoint(a, b Constraint) bool {
	lo, hi := a, b
	if isUpper(a.Op) {
		lo, hi = b, a
	}
	if isUpper(lo.Op) || !isUpper(hi.Op) {
		return false // two bounds on one side always meet
	}
	// lo is a lower bound (>, >=), hi an upper one (<, <=).
	if lo.Bound != hi.Bound {
		return lo.Bound > hi.Bound
	}
	return lo.Op == ">" || hi.Op == "<"
}

func isUpper(op string) bool { return strings.HasPrefix(op, "<") }
