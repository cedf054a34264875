package lab

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rs/zerolog"
)

// TestMatrixRuns: the studies `servetune lab` makes on a landscape, in
// order, for the flag combinations that change them.
func TestMatrixRuns(t *testing.T) {
	prior := &Oracle{}
	base := Matrix{Samplers: []string{"motpe", "tpe"}, MOSamplers: []string{"motpe", "random"}, Seeds: 3, Trials: 7, NoiseCV: 0.05, Workers: 2, Trace: true}
	cases := []struct {
		name string
		m    func(Matrix) Matrix
		want []string
	}{
		{"samplers only", func(m Matrix) Matrix { m.MOSamplers = nil; return m }, []string{"[motpe tpe] nofeas"}},
		{"pruning at two margins", func(m Matrix) Matrix { m.MOSamplers, m.Pruning, m.Margins = nil, true, []float64{0.1, 0.2}; return m },
			[]string{"[motpe tpe] nofeas", "[motpe] prune 0.1", "[motpe] prune 0.2"}},
		{"everything", func(m Matrix) Matrix { m.Pruning, m.Prior = true, true; return m },
			[]string{"[motpe tpe] nofeas", "[motpe] prune 0", "[motpe] prune 0 prior", "[motpe random] multi nofeas", "[motpe] multi prune 0 prior"}},
	}
	for _, c := range cases {
		var got []string
		for _, o := range c.m(base).Runs("glm52", prior, "/tmp/d", zerolog.Nop()) {
			if o.Landscape != "glm52" || o.Seeds != 3 || o.Trials != 7 || o.NoiseCV != 0.05 || o.Workers != 2 || o.Dir != "/tmp/d" || o.Expert == nil || !o.Trace {
				t.Errorf("%s: a run lost the matrix's settings: %+v", c.name, o)
			}
			got = append(got, describeRun(o, prior))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: runs\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}

func describeRun(o Options, prior *Oracle) string {
	s := fmt.Sprint(o.Samplers)
	if o.Multi {
		s += " multi"
	}
	if o.NoFeasibility {
		s += " nofeas"
	}
	if o.Prune {
		s += fmt.Sprintf(" prune %v", o.PruneMargin)
	}
	if o.Prior == prior && prior != nil {
		s += " prior"
	}
	return s
}
