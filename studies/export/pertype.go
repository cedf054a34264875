package export

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// ByGPUType plans the deployments of a study's best trials, one per GPU
// type: best are trial numbers in the order the study ranks them (the
// report's winners, the front's first member first), and the first on
// each type is planned. A study on one GPU type gives one deployment, its
// best trial's, as Trial does.
func ByGPUType(sp *space.Space, trials []store.Trial, best []int, o Options) ([]Deployment, error) {
	byNumber := map[int]store.Trial{}
	for _, t := range trials {
		byNumber[t.Number] = t
	}
	cards, err := studies.TargetCards(sp.Target)
	if err != nil {
		cards = sim.DefaultCards()
	}
	seen := map[string]bool{}
	var out []Deployment
	for _, n := range best {
		t, ok := byNumber[n]
		if !ok {
			return nil, fmt.Errorf("study %s has no trial %d", sp.Study.Name, n)
		}
		key := gpuKey(sp.Target.GPUOf(t.Config), cards)
		if seen[key] {
			continue
		}
		seen[key] = true
		d, err := Trial(sp, t, o)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// gpuKey is a GPU type as one name whichever alias names it.
func gpuKey(gpu string, cards *sim.Cards) string {
	if c, err := cards.GPU(gpu); err == nil {
		return c.Name
	}
	return strings.ToLower(gpu)
}

// KubernetesOf is the manifest of several deployments (ByGPUType): each
// one's documents under its own names, the model cache claims they
// share written once, and a header saying they are alternatives.
func KubernetesOf(deps []Deployment) ([]byte, error) {
	if len(deps) == 0 {
		return nil, errors.New("manifest: no deployment to write")
	}
	if len(deps) == 1 {
		return deps[0].Kubernetes()
	}
	var docs []any
	claims := map[string]bool{}
	for _, d := range deps {
		var ds []any
		if d.disaggregated {
			ds = pdDocs(d.Plans)
		} else {
			ds = oneDocs(d.Plans[0])
		}
		for _, doc := range ds {
			if o, ok := doc.(obj); ok && o["kind"] == "PersistentVolumeClaim" {
				n := o["metadata"].(obj)["name"].(string)
				if claims[n] {
					continue
				}
				claims[n] = true
			}
			docs = append(docs, doc)
		}
	}
	return encodeManifest(headerMany(deps), docs)
}

// header is the comment above one deployment's manifest: which trial, on
// which GPU type, and where its replica count and node selector came
// from.
func header(plans []Plan) []string {
	p := lead(plans)
	on := ""
	if p.GPUType != "" {
		on = " on " + p.GPUType
	}
	out := []string{fmt.Sprintf("servetune export of study %s, trial %d%s.", p.Study, p.Trial, on)}
	for _, why := range []string{p.SimulatedWhy, p.ReplicasWhy, p.SelectorWhy} {
		if why != "" {
			out = append(out, why+".")
		}
	}
	return out
}

// headerMany is the comment above several deployments' manifest.
func headerMany(deps []Deployment) []string {
	var which []string
	for _, d := range deps {
		p := lead(d.Plans)
		which = append(which, "trial "+strconv.Itoa(p.Trial)+" on "+p.GPUType)
	}
	rps := ""
	if r := deps[0].Target.TrafficRPS; r > 0 {
		rps = " for traffic_rps " + num(r)
	}
	out := []string{
		fmt.Sprintf("servetune export of study %s: one Deployment per GPU type among its best trials (the first on each type in the study's ranking): %s.", lead(deps[0].Plans).Study, strings.Join(which, ", ")),
		"They are alternatives, each sized alone" + rps + ": servetune does not model a fleet that splits the traffic between pools of different GPU types, so apply one of them, or scale each down yourself if you split the traffic.",
	}
	for _, d := range deps {
		p := lead(d.Plans)
		for _, why := range []string{p.SimulatedWhy, p.ReplicasWhy, p.SelectorWhy} {
			if why != "" {
				out = append(out, fmt.Sprintf("trial %d: %s.", p.Trial, why))
			}
		}
	}
	return out
}

// lead is the plan a deployment's header speaks of: its first server
// with GPUs (a disaggregated deployment's router has none), else its
// first.
func lead(plans []Plan) Plan {
	for _, p := range plans {
		if p.GPUs > 0 {
			return p
		}
	}
	return plans[0]
}
