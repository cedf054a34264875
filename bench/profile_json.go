package bench

import (
	"encoding/json"
	"fmt"
	"math"
)

// MarshalJSON writes an unlimited request rate as "inf" (as vllm and the
// TOML spell it): JSON has no infinity, and every study that stores a
// profile would otherwise fail to save it.
func (p Profile) MarshalJSON() ([]byte, error) {
	type plain Profile
	aux := struct {
		plain
		RequestRate any `json:"request_rate"`
	}{plain(p), p.RequestRate}
	if math.IsInf(p.RequestRate, 1) {
		aux.RequestRate = "inf"
	}
	return json.Marshal(aux)
}

// UnmarshalJSON accepts a number or "inf" for request_rate.
func (p *Profile) UnmarshalJSON(b []byte) error {
	type plain Profile
	aux := struct {
		*plain
		RequestRate any `json:"request_rate"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	switch v := aux.RequestRate.(type) {
	case nil:
	case float64:
		p.RequestRate = v
	case string:
		if v != "inf" {
			return fmt.Errorf("request_rate %q: want a number or \"inf\"", v)
		}
		p.RequestRate = math.Inf(1)
	default:
		return fmt.Errorf("request_rate %v: want a number or \"inf\"", v)
	}
	return nil
}
