package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/servetune/servetune/search"
)

// outlookKey is the meta key of the prior's view of the space.
const outlookKey = "prior_outlook"

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

// SetOutlook stores the prior's view of the space's regions, for the
// report to set beside what was measured.
func (s *Store) SetOutlook(ctx context.Context, rs []search.Region) error {
	b, err := json.Marshal(outlookOut(rs))
	if err != nil {
		return err
	}
	return s.SetMeta(ctx, outlookKey, string(b))
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
