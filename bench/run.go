package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// RunOptions tunes one run; the zero value is usable.
type RunOptions struct {
	Summary SummaryOptions
	// Progress, when set, is called after each request finishes, from one
	// goroutine.
	Progress func(Progress)
	// OnCheckpoint, when set, is called at each of CheckpointSteps(number
	// of requests) with the step and the metrics of the requests finished so
	// far (for pruning a trial early), from one goroutine. Returning true
	// stops the run: nothing more is sent and the requests in flight are
	// abandoned.
	OnCheckpoint func(step int, m Metrics) (stop bool)
	// RequestTimeout bounds each request; 0 derives the bound from the
	// request's output length (RequestBound), negative means none.
	RequestTimeout time.Duration
	// StallTimeout fails a request that receives no byte for this long,
	// counted from its send: before the headers, before the first chunk
	// and between chunks. 0 means DefaultStallTimeout; negative disables it.
	StallTimeout time.Duration
	// Deadline bounds the whole run, like Profile.MaxDuration; the smaller of
	// the two applies.
	Deadline time.Duration
	// FailFast stops the run as soon as more than MaxFailedFraction of the
	// plan's requests have failed (Hopeless): whatever the rest do, the
	// benchmark has failed, and an engine that hangs would otherwise cost
	// a stall timeout for every wave of requests. Nothing more is sent and
	// the requests in flight are cancelled.
	FailFast          bool
	MaxFailedFraction float64

	// maxLine overrides the SSE line cap, so a test can hit it without
	// streaming 16 MiB.
	maxLine int
	// noPrebuild builds every body when its request is sent, so a
	// benchmark can measure what prebuilding buys.
	noPrebuild bool
}

// Progress is a run's progress so far.
type Progress struct {
	Done, Failed, Total int
	Elapsed             time.Duration
}

// Result is one run.
type Result struct {
	Profile Profile `json:"profile"`
	Metrics Metrics `json:"metrics"`
	// Records holds one record per request sent (warm-ups first, then in plan
	// order); requests never sent because the run stopped have none.
	Records []Record `json:"-"`
	// Start is the wall-clock benchmark start; record offsets count from it.
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration_ns"`
	// Stopped says why the run ended before sending every request, if it did.
	Stopped string `json:"stopped,omitempty"`
}

var errRunStopped = errors.New("run stopped")

// Run benchmarks the server behind c with profile p.
func Run(ctx context.Context, c Client, p Profile, opts RunOptions) (Result, error) {
	plan, err := p.Plan()
	if err != nil {
		return Result{Profile: p}, err
	}
	return RunPlan(ctx, c, plan, opts)
}

// RunPlan benchmarks with an already materialised plan. The error is non-nil
// only for bad input, a warm-up that fails entirely, or ctx ending; the
// Result then still holds what was measured.
func RunPlan(ctx context.Context, c Client, plan Plan, opts RunOptions) (Result, error) {
	p := plan.Profile
	res := Result{Profile: p}
	s, err := newSender(c, &plan, opts)
	if err != nil {
		return res, err
	}
	if c.HTTPClient == nil {
		defer s.hc.CloseIdleConnections()
	}
	warm, err := warmup(ctx, s, plan)
	if err != nil {
		return res, err
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if d := deadline(p.MaxDuration, opts.Deadline); d > 0 {
		t := time.AfterFunc(d, func() { cancel(fmt.Errorf("%w: deadline %v reached", errRunStopped, d)) })
		defer t.Stop()
	}
	res.Start = time.Now()
	s.since = func() time.Duration { return time.Since(res.Start) }
	s.start = res.Start
	preCtx, stopPre := context.WithCancel(runCtx)
	preDone := make(chan struct{})
	if opts.noPrebuild {
		close(preDone)
	} else {
		s.bodies = newBodies(len(plan.Requests))
		go func() { defer close(preDone); s.prebuild(preCtx, s.bodies, plan.Requests, res.Start) }()
	}
	total := len(plan.Requests)
	due := CheckpointSteps(total)
	failed := 0
	runRequests(runCtx, plan.Requests, p.MaxConcurrency, res.Start, failFast(s.send, opts, total, cancel), func(r Record) {
		res.Records = append(res.Records, r)
		if !r.Success {
			failed++
		}
		done := len(res.Records)
		if opts.Progress != nil {
			opts.Progress(Progress{Done: done, Failed: failed, Total: total, Elapsed: time.Since(res.Start)})
		}
		on := opts.OnCheckpoint
		if runCtx.Err() != nil {
			on = nil // stopped: the metrics so far no longer mean a checkpoint
		}
		var step int
		if due, step = checkpoint(due, done, on, func() Metrics {
			return Summarize(res.Records, time.Since(res.Start), opts.Summary)
		}); step > 0 {
			cancel(fmt.Errorf("%w: checkpoint %d asked to stop after %d requests", errRunStopped, step, done))
		}
	})
	stopPre()
	<-preDone
	res.Duration = time.Since(res.Start)
	sort.Slice(res.Records, func(i, j int) bool { return res.Records[i].Index < res.Records[j].Index })
	res.Records = append(warm, res.Records...)
	res.Metrics = res.Saved().Metrics(opts.Summary)
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("benchmark %s: %w", p.Name, err)
	}
	if c := context.Cause(runCtx); errors.Is(c, errRunStopped) {
		res.Stopped = c.Error()
	}
	return res, nil
}

// failFast wraps send so that, with opts.FailFast, the failure that makes
// the run hopeless stops it before its request's slot goes free: judged
// later, where records are collected, the freed slot could already have
// sent more requests to an engine that cannot pass.
func failFast(send func(context.Context, *PlannedRequest) Record, opts RunOptions, total int,
	cancel context.CancelCauseFunc) func(context.Context, *PlannedRequest) Record {
	if !opts.FailFast {
		return send
	}
	var failed atomic.Int64
	return func(ctx context.Context, r *PlannedRequest) Record {
		rec := send(ctx, r)
		if rec.Success || ctx.Err() != nil {
			return rec
		}
		if n := int(failed.Add(1)); Hopeless(n, total, opts.MaxFailedFraction) {
			cancel(fmt.Errorf("%w: %d of %d requests failed, more than max_failed_fraction %v of them", errRunStopped, n, total, opts.MaxFailedFraction))
		}
		return rec
	}
}

// Hopeless reports whether a run of total requests, failed of which have
// failed, can no longer pass max_failed_fraction whatever the others do:
// a benchmark fails when more than maxFailed of its finished requests
// failed (objective's judge), and at most total finish.
func Hopeless(failed, total int, maxFailed float64) bool {
	return failed > 0 && float64(failed) > maxFailed*float64(total)
}

// newSender checks the client and builds the sender every request of the
// plan goes through.
func newSender(c Client, plan *Plan, opts RunOptions) (*sender, error) {
	key, err := c.apiKey()
	if err != nil {
		return nil, err
	}
	if c.Model == "" {
		return nil, errors.New("bench: no model name")
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = newHTTPClient(plan.Profile.MaxConcurrency)
	}
	return &sender{plan: plan, hc: hc, url: c.url(plan.Profile.EndpointName()), model: c.Model, header: c.header(key),
		secrets: []string{key}, stall: cmp.Or(opts.StallTimeout, DefaultStallTimeout), timeout: opts.RequestTimeout,
		maxLine: opts.maxLine}, nil
}

// checkpoint calls on for the checkpoints in due that fall at done
// finished requests, summarising once for all of them. It returns the
// checkpoints still due and the step that asked to stop, if one did.
func checkpoint(due []Checkpoint, done int, on func(int, Metrics) bool, summarize func() Metrics) ([]Checkpoint, int) {
	var m *Metrics
	for len(due) > 0 && due[0].Requests <= done {
		cp := due[0]
		due = due[1:]
		if on == nil {
			continue
		}
		if m == nil {
			s := summarize()
			m = &s
		}
		if on(cp.Step, *m) {
			return nil, cp.Step
		}
	}
	return due, 0
}

// warmup sends the plan's warm-up requests under the same concurrency cap;
// if every one fails the server is not usable and the run stops here, as
// vllm bench does after its initial test request.
func warmup(ctx context.Context, s *sender, plan Plan) ([]Record, error) {
	if len(plan.Warmup) == 0 {
		return nil, nil
	}
	start := time.Now()
	s.since = func() time.Duration { return time.Since(start) }
	s.start = start
	var recs []Record
	runRequests(ctx, plan.Warmup, plan.Profile.MaxConcurrency, start, s.send, func(r Record) { recs = append(recs, r) })
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	for _, r := range recs {
		if r.Success {
			return recs, nil
		}
	}
	return nil, fmt.Errorf("warm-up: all %d requests failed, first: %s", len(recs), recs[0].Error)
}

func deadline(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

// runRequests starts each request at its arrival offset from start, with at
// most limit in flight (0: no limit), and hands every record to done from
// the calling goroutine. As in vllm bench, a request becomes due on the
// schedule and then waits for a free slot; slots go to requests in plan
// order (vllm's asyncio semaphore is FIFO too), and Record.Start is when the
// request is actually sent. A multi-turn round takes its slot when due
// and is sent once the round it continues has finished (sessions), as
// the simulator holds it. Requests not yet sent when ctx ends are
// dropped; runRequests returns when every sent request has finished.
func runRequests(ctx context.Context, reqs []PlannedRequest, limit int, start time.Time,
	send func(context.Context, *PlannedRequest) Record, done func(Record)) {
	results := make(chan Record, 256)
	held := newSessions(reqs)
	var sem chan struct{}
	if limit > 0 {
		sem = make(chan struct{}, limit)
	}
	go func() {
		var wg sync.WaitGroup
		defer func() { wg.Wait(); close(results) }()
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		for i := range reqs {
			r := &reqs[i]
			if !waitUntil(ctx, timer, start.Add(r.Arrival)) {
				return
			}
			if sem != nil {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
			if ctx.Err() != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				var rec Record
				sent := held.wait(ctx, reqs, i) // stopped while held: never sent, no record
				if sent {
					rec = send(ctx, r)
				}
				// The slot and the next round go free when the client has
				// the reply, not when done has read the record.
				if sem != nil {
					<-sem
				}
				held.done(i)
				if sent {
					results <- rec
				}
			}()
		}
	}()
	for rec := range results {
		done(rec)
	}
}
