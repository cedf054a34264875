package preflight

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// estimate runs the whole study on the simulator, on a virtual clock, in
// a scratch directory removed afterwards: its first trials are the
// baseline and the proposals the real study starts with (the samplers
// are seeded, and the prior ranks on the same simulator), its clock and
// device time the study's expected cost. why says why there is none.
func estimate(ctx context.Context, in Input) (e *Estimate, first []Proposal, why string, err error) {
	t := in.Space.Target
	if _, err := in.Cards.GPU(t.GPU); err != nil {
		return nil, nil, fmt.Sprintf("the simulator has no card for GPU %q", t.GPU), nil
	}
	if _, err := in.Cards.Model(t.Model); err != nil {
		return nil, nil, fmt.Sprintf("the simulator has no card for model %q", t.Model), nil
	}
	tmp, err := os.MkdirTemp("", "servetune-dry-run-")
	if err != nil {
		return nil, nil, "", err
	}
	defer os.RemoveAll(tmp)
	trials, start, err := simulate(ctx, in, tmp)
	if err != nil {
		return nil, nil, "", err
	}
	return summarise(in, trials, start), proposals(in, trials), "", nil
}

// simulate runs the study's copy on the simulator in dir.
func simulate(ctx context.Context, in Input, dir string) ([]store.Trial, time.Time, error) {
	sp := *in.Space
	sp.Target.Runner = "sim"
	d := studydir.Of(dir, sp.Study.Name)
	st, err := store.Open(ctx, d.DB(), store.Create)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer st.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := in.Run
	o.Space, o.Store, o.Dir, o.Log = &sp, st, d, zerolog.Nop()
	o.Runner = objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: in.Cards}))
	o.Virtual, o.WorkerID, o.Now, o.OnEvent = true, "dry-run", func() time.Time { return t0 }, nil
	o.Workers = max(o.Workers, 1)
	if err := studies.Run(ctx, o); err != nil && !isStop(err) {
		return nil, t0, err
	}
	trials, err := st.Trials(ctx)
	sort.Slice(trials, func(i, j int) bool { return trials[i].Number < trials[j].Number })
	return trials, t0, err
}

// isStop: the budget or the study's timeout ended the run, as they would
// the real one.
func isStop(err error) bool {
	return err == studies.ErrBudget || err == studies.ErrTimeout
}

func summarise(in Input, trials []store.Trial, start time.Time) *Estimate {
	e := &Estimate{Unit: studies.HoursUnit(device(in))}
	end := start
	tgt := in.Space.Target
	for _, t := range trials {
		e.Trials++
		if !tgt.Simulates(tgt.GPUOf(t.Config)) {
			// A GPU type the real study simulates costs it no GPU time
			// (objective.ByGPU); the copy simulated every type.
			e.DeviceHours += t.GPUSeconds / 3600
		}
		if t.End.After(end) {
			end = t.End
		}
	}
	e.Duration = end.Sub(start)
	return e
}

func device(in Input) string {
	if usesGPUs(in.Space) {
		return "gpu"
	}
	return "cpu"
}

// proposals are the first trials' commands as the real target runs them.
func proposals(in Input, trials []store.Trial) []Proposal {
	var out []Proposal
	for _, t := range trials {
		if len(out) > in.Proposals {
			break
		}
		cmd, err := in.Render(t.Config)
		if err != nil {
			cmd = "(cannot render: " + err.Error() + ")"
		}
		out = append(out, Proposal{Trial: t.Number, Origin: t.Origin, Command: cmd})
	}
	return out
}
