package report

import (
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// together lists, for each knob, the other knobs the complete trials only
// ever varied with it: one's value always gives the other's and back (the
// quickstart's dp = 8 exactly when enable_dp_attention = true). No method
// can tell such knobs' effects apart from these trials, so the report
// says so beside their shares.
func together(pts []Point, ks []Knob) map[string][]string {
	var done []space.Config
	for _, p := range pts {
		if p.State == store.Complete {
			done = append(done, p.Config)
		}
	}
	out := map[string][]string{}
	for i, a := range ks {
		for _, b := range ks[i+1:] {
			if bijective(done, a.Name, b.Name) {
				out[a.Name] = append(out[a.Name], b.Name)
				out[b.Name] = append(out[b.Name], a.Name)
			}
		}
	}
	return out
}

// bijective reports whether knobs a and b determine each other over cs
// (an absent value counts as a value) and each takes more than one.
func bijective(cs []space.Config, a, b string) bool {
	ab, ba := map[string]string{}, map[string]string{}
	for _, c := range cs {
		va, vb := valueOf(c, a), valueOf(c, b)
		if x, ok := ab[va]; ok && x != vb {
			return false
		}
		if x, ok := ba[vb]; ok && x != va {
			return false
		}
		ab[va], ba[vb] = vb, va
	}
	return len(ab) > 1
}

func valueOf(c space.Config, k string) string {
	v, ok := c[k]
	if !ok {
		return "\x00absent"
	}
	return space.FormatValue(v)
}
