package studies

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// checkSpace stores the space with a new study and refuses to resume a
// study whose space changed in a way that makes its trials incomparable.
// The parsed spaces are compared, not the files' bytes: comments,
// formatting, key order, n_trials, the study timeout and the target's
// time limits may change freely.
func checkSpace(ctx context.Context, store *store.Store, sp *space.Space, o OpenOptions) error {
	old, err := store.Meta(ctx, "space")
	if err != nil {
		return err
	}
	if old == "" {
		if err := store.SetMeta(ctx, "space_file", sp.File); err != nil {
			return err
		}
		if err := store.SetMeta(ctx, "sampler", sp.Study.Sampler); err != nil {
			return err
		}
		return store.SetMeta(ctx, "space", o.Source)
	}
	file, err := store.Meta(ctx, "space_file")
	if err != nil {
		return err
	}
	prev, err := o.Parse(ctx, file, old)
	if err != nil {
		return fmt.Errorf("study %s: its stored space no longer loads: %w", store.Path(), err)
	}
	began, err := store.Meta(ctx, "sampler")
	if err != nil {
		return err
	}
	for _, s := range []*space.Space{prev, sp} {
		s.Study.Sampler = resumedSampler(s.Study, began)
	}
	if part := differs(prev, sp); part != "" {
		return fmt.Errorf("%w (%s differ) — %s holds the trials of %s as it was; run with --fresh to start over, or give the study another name",
			ErrSpaceChanged, part, store.Path(), file)
	}
	return nil
}

// legacySampler is the sampler every file that named none got before
// the default followed the prior (space.DefaultSampler); such studies
// stored no "sampler" meta.
const legacySampler = "motpe"

// resumedSampler is the sampler a resumed study runs: the one its file
// names, else the one it began with, so a change of default never
// switches a study's search half-way.
func resumedSampler(st space.Study, began string) string {
	switch {
	case !st.SamplerDefaulted:
		return st.Sampler
	case began != "":
		return began
	default:
		return legacySampler
	}
}

// differs names the first part of two spaces that differs ("" if none).
func differs(a, b *space.Space) string {
	fa, fb := fingerprint(a), fingerprint(b)
	for _, part := range []string{"study", "target", "objectives", "constraints", "profiles", "params", "rules", "baseline", "enqueue"} {
		if string(fa[part]) != string(fb[part]) {
			return part
		}
	}
	return ""
}

// fingerprint is each part of a space that decides what its trials mean,
// as canonical JSON (maps marshal with sorted keys).
func fingerprint(sp *space.Space) map[string][]byte {
	type param struct {
		space.Param
		When string
	}
	params := make([]param, len(sp.Params))
	for i, p := range sp.Params {
		params[i] = param{Param: p}
		params[i].Param.When = nil
		if p.When != nil {
			params[i].When = p.When.String()
		}
	}
	rules := make([]string, len(sp.Rules))
	for i, r := range sp.Rules {
		rules[i] = r.Expr.String()
	}
	study := struct {
		Name, Sampler string
		Seed          int64
	}{sp.Study.Name, sp.Study.Sampler, sp.Study.Seed}
	// Time limits and the failed-request threshold bound how a trial is
	// run, not what it measures: a user may loosen them to resume.
	// So do where it runs: the address it binds to, and the hosts (a
	// scheduler gives each job other node names).
	target := sp.Target
	target.StartupTimeout, target.StallTimeout, target.TrialTimeout, target.MaxFailedFraction = 0, 0, 0, 0
	target.Host, target.Nodes, target.NodeLaunch = "", nil, nil
	// Nor does the node selector its Kubernetes export pins pods with.
	target.NodeSelector = nil
	out := map[string][]byte{}
	for part, v := range map[string]any{
		"study": study, "target": target, "objectives": sp.Objectives, "constraints": sp.Constraints,
		"profiles": sp.Profiles, "params": params, "rules": rules, "baseline": sp.Baseline, "enqueue": sp.Enqueue,
	} {
		out[part], _ = json.Marshal(v)
	}
	return out
}
