package fidelity

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/engines/sim"
)

// Leave-one-out folds run side by side give the report that one fold at
// a time gives, byte for byte (run under -race, the folds share no
// mutable state: LeaveOneOut once wrote its options' Start from every
// fold).
func TestCheckWorkersMatchesOneAtATime(t *testing.T) {
	if testing.Short() {
		t.Skip("refits three folds twice")
	}
	rp := &Replayer{Cards: sim.DefaultCards()}
	f, _ := Parse([]byte(oneRun))
	base := f.Runs[0]
	truth := sim.PriorVLLM()
	var runs []Run
	for i, m := range []string{"Qwen/Qwen2.5-7B-Instruct", "mistralai/Mistral-Nemo-Instruct-2407", "meta-llama/Llama-2-7b-hf"} {
		r := base
		r.ID, r.Model = fmt.Sprint(i), m
		s, err := rp.Simulate(context.Background(), &truth, r)
		if err != nil {
			t.Fatal(err)
		}
		r.Measured = measuredFrom(s)
		// Measured 10% slower than the prior simulates, so that each
		// fold's refit moves and differs from the others'.
		for k, st := range r.Measured {
			*st.E2EMean *= 1 + 0.05*float64(i+1)
			r.Measured[k] = st
		}
		runs = append(runs, r)
	}
	file := &File{Runs: runs}
	o := FitOptions{Iterations: 2, Ridge: 0.02}
	one, err := CheckWorkers(context.Background(), file, "leave-one-out", LeaveOneOut(rp, runs, sim.PriorVLLM(), o), 1)
	if err != nil {
		t.Fatal(err)
	}
	three, err := CheckWorkers(context.Background(), file, "leave-one-out", LeaveOneOut(rp, runs, sim.PriorVLLM(), o), 3)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(one)
	b, _ := json.Marshal(three)
	if string(a) != string(b) {
		t.Errorf("three workers' report differs from one worker's:\n%s\n%s", a, b)
	}
}

// CheckWorkers does run that many predictions at once (and no more), and
// keeps the rows in the file's order whatever order they finish in.
func TestCheckWorkersRunsFoldsAtOnce(t *testing.T) {
	// In a bubble: the sleeps and the deadline below are on its clock, so
	// the partner's wait is deterministic however loaded the machine.
	synctest.Test(t, func(t *testing.T) {
		two := `{"runs": [` + runJSON(oneRun) + `, ` + replaceID(runJSON(oneRun), "b") + `, ` + replaceID(runJSON(oneRun), "c") + `]}`
		f, err := Parse([]byte(two))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		inFlight, most := 0, 0
		predict := func(_ context.Context, i int, _ Run) (*Simulated, error) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
			// Wait for a partner, so that two at once is seen, not hoped for.
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				mu.Lock()
				m := most
				mu.Unlock()
				if m >= 2 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			time.Sleep(time.Duration(3-i) * 5 * time.Millisecond) // the last run finishes first
			mu.Lock()
			inFlight--
			mu.Unlock()
			s := &Simulated{}
			s.Metrics.E2EL.N, s.Metrics.E2EL.Mean = 10, float64(100*(i+1))
			return s, nil
		}
		rep, err := CheckWorkers(context.Background(), f, "fitted", predict, 2)
		if err != nil {
			t.Fatal(err)
		}
		if most != 2 {
			t.Errorf("at most %d predictions at once, want 2", most)
		}
		for i, want := range []string{"a", "b", "c"} {
			if rep.Runs[i].ID != want || rep.Runs[i].Summary.Sim["e2e_mean"] != float64(100*(i+1)) {
				t.Errorf("row %d: %s with e2e %v, want run %s with %d", i, rep.Runs[i].ID, rep.Runs[i].Summary.Sim["e2e_mean"], want, 100*(i+1))
			}
		}
	})
}

func replaceID(run, id string) string {
	return fmt.Sprintf(`{"id": %q`, id) + run[len(`{"id": "a"`):]
}
