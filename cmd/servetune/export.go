package main

import (
	"errors"
	"slices"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/export"
	"github.com/servetune/servetune/studies/store"
)

// export prints the deployment of one trial: the best (the front's first
// member) unless trial names another; with k8s and no trial, one per GPU
// type among the winners (export.ByGPUType). What deploys it is decided in
// studies/export; here only which trials, and how a refusal exits.
func (e *env) export(sp *space.Space, trials []store.Trial, r studies.Report, kind string, trial int, o export.Options) error {
	if kind != "docker" && kind != "k8s" {
		return usagef("--export must be docker or k8s, not %q", kind)
	}
	best := []int{trial}
	if trial == 0 {
		if len(r.Winners) == 0 {
			return usagef("study %s has no complete trial to export yet", sp.Study.Name)
		}
		best = nil
		for _, w := range r.Winners {
			best = append(best, w.Trial)
		}
	} else if !slices.ContainsFunc(trials, func(t store.Trial) bool { return t.Number == trial }) {
		return usagef("study %s has no trial %d", sp.Study.Name, trial)
	}
	if kind == "docker" {
		// One host runs one deployment: the best.
		best = best[:1]
	}
	deps, err := export.ByGPUType(sp, trials, best, o)
	if errors.Is(err, export.ErrNotComplete) || errors.Is(err, export.ErrNoImage) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	var y []byte
	if kind == "docker" {
		// A refusal here is the deployment's: it needs more GPUs than
		// one host has.
		if y, err = deps[0].Docker(); err != nil {
			return usageError{err}
		}
	} else if y, err = export.KubernetesOf(deps); err != nil {
		return err
	}
	_, err = e.stdout.Write(y)
	return err
}
