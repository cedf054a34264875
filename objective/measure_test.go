package objective

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/engines"
)

type runnerFunc func(ctx context.Context, t Trial) (Result, error)

func (f runnerFunc) Run(ctx context.Context, t Trial) (Result, error) { return f(ctx, t) }

// An engine that never answers holds a trial only until its time limit;
// then the trial fails as a timeout and the study moves on.
func TestMeasureFailsATrialThatOutlivesItsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hung := runnerFunc(func(ctx context.Context, _ Trial) (Result, error) {
			<-ctx.Done()
			return Result{GPUSeconds: 1}, ctx.Err()
		})
		start := time.Now()
		_, err := Measure(context.Background(), hung, Trial{Timeout: 45 * time.Minute})
		f, ok := engines.AsFailure(err)
		if !ok || f.Class != engines.Timeout {
			t.Fatalf("Measure = %v, want a timeout failure", err)
		}
		if waited := time.Since(start); waited != 45*time.Minute {
			t.Errorf("waited %v, want the 45m limit", waited)
		}
	})
}

// When servetune itself is interrupted the error is the interruption, not
// a timeout, even if the limit passes meanwhile.
func TestMeasureReportsInterruptionNotTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		r := runnerFunc(func(ctx context.Context, _ Trial) (Result, error) {
			cancel()
			<-ctx.Done()
			return Result{}, ctx.Err()
		})
		_, err := Measure(ctx, r, Trial{Timeout: time.Hour})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Measure = %v, want context.Canceled", err)
		}
		if _, ok := engines.AsFailure(err); ok {
			t.Errorf("an interruption was classified as an engine failure: %v", err)
		}
	})
}

func TestJudgeFailsBenchmarksWhoseRequestsFailed(t *testing.T) {
	for _, c := range []struct {
		name      string
		metrics   map[string]float64
		maxFailed float64
		want      string // "" = passes
	}{
		{"all good", map[string]float64{"completed": 100, "failed": 0}, 0.01, ""},
		{"one of 100 failed", map[string]float64{"completed": 99, "failed": 1}, 0.01, ""},
		{"two of 100 failed", map[string]float64{"completed": 98, "failed": 2}, 0.01, "2 of 100 requests failed"},
		{"every request failed", map[string]float64{"completed": 0, "failed": 512}, 0.01, "no request succeeded (512 failed)"},
		{"nothing finished (deadline cut an engine that never answered)", map[string]float64{"completed": 0, "failed": 0}, 0.5, "no request succeeded"},
		{"a runner that counts nothing", map[string]float64{"total_tps": 5}, 0.01, ""},
		{"lenient threshold", map[string]float64{"completed": 50, "failed": 50}, 0.5, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Result{Metrics: map[string]map[string]float64{"p": c.metrics}, Errors: map[string]string{"p": "http 400: prompt too long"}}
			err := judge(res, c.maxFailed)
			if c.want == "" {
				if err != nil {
					t.Fatalf("judge = %v, want pass", err)
				}
				return
			}
			f, ok := engines.AsFailure(err)
			if !ok || f.Class != engines.BenchFailed || !strings.Contains(f.Message, c.want) || !strings.Contains(f.Message, "prompt too long") {
				t.Fatalf("judge = %v, want bench_failed with %q and the dominant error", err, c.want)
			}
		})
	}
}
