package pack

// GPUs are the devices a worker owns and which of them trials hold. A
// trial starts only on devices that are all free: nothing over-commits.
type GPUs struct {
	all  []string
	busy map[string]bool
}

// New is a worker's devices, all free.
func New(all []string) *GPUs { return &GPUs{all: all, busy: map[string]bool{}} }

// All is every device of the worker.
func (g *GPUs) All() []string { return g.all }

// Take reserves n free devices, lowest first, or none when fewer are
// free. No devices declared means no packing: every trial fits.
func (g *GPUs) Take(n int) ([]string, bool) {
	if len(g.all) == 0 {
		return nil, true
	}
	var out []string
	for _, d := range g.all {
		if len(out) == n {
			break
		}
		if !g.busy[d] {
			out = append(out, d)
		}
	}
	if len(out) < n {
		return nil, false
	}
	for _, d := range out {
		g.busy[d] = true
	}
	return out, true
}

// Release frees a finished trial's devices.
func (g *GPUs) Release(ds []string) {
	for _, d := range ds {
		delete(g.busy, d)
	}
}

// Fits says whether n devices could ever be free at once here.
func (g *GPUs) Fits(n int) bool { return len(g.all) == 0 || n <= len(g.all) }
