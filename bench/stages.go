package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Stage is one phase of a multi-stage load (inference-perf's load.stages):
// Poisson arrivals at Rate requests/s for Duration, after the stages
// before it.
type Stage struct {
	Rate     float64       `toml:"rate" json:"rate"`
	Duration time.Duration `toml:"duration" json:"duration"`
}

// requests is how many requests the stage sends: rate × duration, rounded.
func (s Stage) requests() int { return int(math.Round(s.Rate * s.Duration.Seconds())) }

// Count is how many measured requests the profile sends: num_prompts, or
// the stages' requests.
func (p Profile) Count() int {
	if len(p.Stages) == 0 {
		return p.NumPrompts
	}
	n := 0
	for _, s := range p.Stages {
		n += s.requests()
	}
	return n
}

// ArrivalSpan is how long the profile's arrivals take: the stages'
// durations, or num_prompts at the request rate (0 when unlimited).
func (p Profile) ArrivalSpan() time.Duration {
	if len(p.Stages) > 0 {
		var d time.Duration
		for _, s := range p.Stages {
			d += s.Duration
		}
		return d
	}
	if p.DatasetName() == DatasetTrace {
		return p.traceArrivalSpan()
	}
	if p.Unlimited() {
		return 0
	}
	return time.Duration(float64(p.NumPrompts) / p.RequestRate * float64(time.Second))
}

// StageStarts is the index of each stage's first request; nil without
// stages.
func (p Profile) StageStarts() []int {
	if len(p.Stages) == 0 {
		return nil
	}
	out := make([]int, len(p.Stages))
	n := 0
	for i, s := range p.Stages {
		out[i] = n
		n += s.requests()
	}
	return out
}

// Summary is o with what the profile asks of its summary: its
// percentiles, its SLO and its stages.
func (p Profile) Summary(o SummaryOptions) SummaryOptions {
	for _, q := range p.Percentiles {
		if !slices.Contains(o.Percentiles, q) {
			o.Percentiles = append(o.Percentiles, q)
		}
	}
	if p.SLO != nil {
		o.Goodput = *p.SLO
	}
	o.StageStarts = p.StageStarts()
	return o
}

// stageArrivals draws each stage's Poisson arrivals (burstiness applies)
// with its own stream, offset by the stages before it.
func stageArrivals(p Profile) []time.Duration {
	var out []time.Duration
	var at time.Duration
	for i, s := range p.Stages {
		for _, a := range Arrivals(s.requests(), s.Rate, p.BurstinessFactor(), p.Seed+int64(i)) {
			out = append(out, at+a)
		}
		at += s.Duration
	}
	return out
}

func (p Profile) stageProblems(bad func(key, format string, a ...any)) {
	if len(p.Stages) == 0 {
		return
	}
	if p.NumPrompts != 0 {
		bad("num_prompts", "must be unset with stages (each stage sends rate × duration requests), not %d", p.NumPrompts)
	}
	if p.RequestRate != 0 {
		bad("request_rate", "must be unset with stages (each stage has its rate), not %v", p.RequestRate)
	}
	if p.SearchRate != nil {
		bad("search_rate", "does not apply to a profile with stages")
	}
	for i, s := range p.Stages {
		key := fmt.Sprintf("stages[%d]", i)
		switch {
		case !(s.Rate > 0) || math.IsInf(s.Rate, 1):
			bad(key+".rate", "must be a finite number > 0, not %v", s.Rate)
		case s.Duration <= 0:
			bad(key+".duration", "must be > 0, not %v", s.Duration)
		case s.requests() < 1:
			bad(key, "sends no request (rate %v × duration %v rounds to 0)", s.Rate, s.Duration)
		}
	}
}
