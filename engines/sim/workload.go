package sim

import (
	"fmt"

	"github.com/servetune/servetune/bench"
)

// request is one prompt of the workload as the client will send it.
type request struct {
	in, out int
	// prefix is how many leading prompt tokens are shared with every other
	// request (random dataset prefix_len), i.e. cacheable.
	prefix int
	// arrival is when the client wants to send it (seconds from start);
	// the concurrency cap may delay the actual send.
	arrival float64
}

// workload takes lengths and arrivals from the profile's plan, the same
// schedule the live load generator follows.
func workload(p bench.Profile) ([]request, error) {
	pl, err := p.Plan()
	if err != nil {
		return nil, fmt.Errorf("sim: profile %q: %w", p.Name, err)
	}
	prefix := 0
	if p.DatasetName() == bench.DatasetRandom {
		prefix = p.PrefixLen
	}
	reqs := make([]request, len(pl.Requests))
	for i, r := range pl.Requests {
		reqs[i] = request{in: r.InputLen, out: max(r.OutputLen, 1), prefix: prefix, arrival: r.Arrival.Seconds()}
	}
	return reqs, nil
}
