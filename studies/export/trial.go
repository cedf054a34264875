package export

import (
	"fmt"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Deployment is a trial's plans as engines.Deploy resolves its config:
// one Plan for one server, one per process (prefill and decode servers,
// then the router) for a disaggregated deployment.
type Deployment struct {
	Trial  int
	Target space.Target
	Plans  []Plan
	// disaggregated: the plans are one deployment's processes.
	disaggregated bool
}

// Trial plans trial t's deployment, as New for one server and NewPD for
// a disaggregated one: engines.Deploy decides which, once.
func Trial(sp *space.Space, t store.Trial, o Options) (Deployment, error) {
	out := Deployment{Trial: t.Number, Target: sp.Target}
	if err := holds(t, o); err != nil {
		return out, err
	}
	d, f, refused, err := deploy(sp, t, o)
	if err == nil {
		err = refused
	}
	if err != nil {
		return out, err
	}
	if d.PD != nil {
		out.disaggregated = true
		out.Plans, err = planPD(sp, t, o, d, f)
		return out, err
	}
	out.Plans = []Plan{planOne(sp, t, o, d, f)}
	return out, nil
}

// Docker is the deployment on one host: a `docker run` snippet for one
// server (Docker), a Compose file for a disaggregated deployment
// (ComposePD; one docker run cannot hold it), whose refusal names the
// trial.
func (d Deployment) Docker() ([]byte, error) {
	if !d.disaggregated {
		return []byte(Docker(d.Plans[0])), nil
	}
	y, err := ComposePD(d.Plans, d.Target)
	if err != nil {
		return nil, fmt.Errorf("trial %d: %w", d.Trial, err)
	}
	return y, nil
}

// Kubernetes is the deployment's manifest (Kubernetes, KubernetesPD).
func (d Deployment) Kubernetes() ([]byte, error) {
	if !d.disaggregated {
		return Kubernetes(d.Plans[0])
	}
	return KubernetesPD(d.Plans)
}
