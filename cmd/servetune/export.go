package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/export"
	"github.com/servetune/servetune/studies/store"
)

// export prints the deployment of one trial: the best (the front's first
// member) unless trial names another. What deploys it is decided in
// studies/export; here only which trial, and how a refusal exits.
func (e *env) export(sp *space.Space, trials []store.Trial, r studies.Report, kind string, trial int, o export.Options) error {
	if kind != "docker" && kind != "k8s" {
		return usagef("--export must be docker or k8s, not %q", kind)
	}
	if trial == 0 {
		if len(r.Winners) == 0 {
			return usagef("study %s has no complete trial to export yet", sp.Study.Name)
		}
		trial = r.Winners[0].Trial
	}
	i := slices.IndexFunc(trials, func(t store.Trial) bool { return t.Number == trial })
	if i < 0 {
		return usagef("study %s has no trial %d", sp.Study.Name, trial)
	}
	if engines.IsPD(trials[i].Config) {
		return e.exportPD(sp, trials[i], kind, o)
	}
	p, err := export.New(sp, trials[i], o)
	if errors.Is(err, export.ErrNotComplete) || errors.Is(err, export.ErrNoImage) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if kind == "docker" {
		_, err := fmt.Fprint(e.stdout, export.Docker(p))
		return err
	}
	y, err := export.Kubernetes(p)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(y)
	return err
}

// exportPD prints a disaggregated trial's manifests, one Deployment and
// Service per process, or its compose file on one host (docker: one
// docker run cannot hold a deployment).
func (e *env) exportPD(sp *space.Space, t store.Trial, kind string, o export.Options) error {
	plans, err := export.NewPD(sp, t, o)
	if errors.Is(err, export.ErrNotComplete) || errors.Is(err, export.ErrNoImage) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	var y []byte
	if kind == "docker" {
		y, err = export.ComposePD(plans, sp.Target)
		if err != nil {
			return usageError{fmt.Errorf("trial %d: %w", t.Number, err)}
		}
	} else if y, err = export.KubernetesPD(plans); err != nil {
		return err
	}
	_, err = e.stdout.Write(y)
	return err
}
