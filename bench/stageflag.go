package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseStages reads a command line's stage list, "RATE:DURATION,...",
// e.g. "2.5:10m,6:10m" (rates in requests/s, durations as Go spells
// them): `servetune bench --stages`, the profile's stages table in one
// flag. Each stage is checked as a profile's would be.
func ParseStages(s string) ([]Stage, error) {
	var out []Stage
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		rate, dur, ok := strings.Cut(f, ":")
		if !ok {
			return nil, fmt.Errorf("stage %d %q: want RATE:DURATION, e.g. 2.5:10m", i+1, f)
		}
		r, err := strconv.ParseFloat(strings.TrimSpace(rate), 64)
		if err != nil || !(r > 0) || math.IsInf(r, 1) {
			return nil, fmt.Errorf("stage %d %q: the rate must be a finite number of requests/s > 0", i+1, f)
		}
		d, err := time.ParseDuration(strings.TrimSpace(dur))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("stage %d %q: the duration must be positive, e.g. 90s or 10m", i+1, f)
		}
		st := Stage{Rate: r, Duration: d}
		if st.requests() < 1 {
			return nil, fmt.Errorf("stage %d %q sends no request (rate × duration rounds to 0)", i+1, f)
		}
		out = append(out, st)
	}
	return out, nil
}
