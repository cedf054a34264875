package studies

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/servetune/servetune/search"
)

// outlookKey is the meta key of the prior's view of the space.
const outlookKey = "prior_outlook"

// saveOutlook stores the prior's view of the space's regions, when the
// sampler has a prior, for the report to set beside what was measured.
func (l *loop) saveOutlook(ctx context.Context) {
	o, ok := l.sampler.(search.Outlooker)
	if !ok {
		return
	}
	b, err := json.Marshal(outlookOut(o.Outlook()))
	if err == nil {
		err = l.Store.SetMeta(context.WithoutCancel(ctx), outlookKey, string(b))
	}
	if err != nil {
		l.Log.Warn().Err(err).Msg("could not store the prior's outlook")
	}
}

// Region is the prior's view of one knob value (search.Region as stored:
// Best holds null where the prior predicted nothing).
type Region struct {
	Knob          string     `json:"knob"`
	Value         string     `json:"value"`
	Best          []*float64 `json:"best"`
	Full          int        `json:"full"`
	Screened      int        `json:"screened"`
	FromScreening bool       `json:"from_screening,omitempty"`
}

func outlookOut(rs []search.Region) []Region {
	out := make([]Region, len(rs))
	for i, r := range rs {
		out[i] = Region{Knob: r.Knob, Value: r.Value, Full: r.Full, Screened: r.Screened, FromScreening: r.FromScreening}
		for _, v := range r.Best {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				out[i].Best = append(out[i].Best, nil)
				continue
			}
			out[i].Best = append(out[i].Best, &v)
		}
	}
	return out
}

// Outlook reads the prior's view of the space stored with the study (nil
// when the study had no prior or predates it).
func (s *Store) Outlook(ctx context.Context) ([]Region, error) {
	v, err := s.Meta(ctx, outlookKey)
	if err != nil || v == "" {
		return nil, err
	}
	var out []Region
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return nil, fmt.Errorf("study %s: %s: %w", s.path, outlookKey, err)
	}
	return out, nil
}
