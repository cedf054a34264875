package simprior

import (
	"sync"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// MemoryPlan is the simulator's memory plan on a set of cards, asked
// about machines unlike them: usable GPU memory and the overheads
// besides weights and KV cache (activation peaks, CUDA graphs, runtime
// buffers) scaled, which is what a real machine most often does not
// share with its card. The search learns the two scales from a study's
// out-of-memory and feasible trials (search.MemoryPlanner). It is safe
// for concurrent use.
type MemoryPlan struct {
	cards *sim.Cards
	mu    sync.Mutex
	sims  map[[2]float64]*sim.Simulator
}

// NewMemoryPlan returns the memory plan of cards.
func NewMemoryPlan(cards *sim.Cards) *MemoryPlan {
	return &MemoryPlan{cards: cards, sims: map[[2]float64]*sim.Simulator{}}
}

// Fits reports whether the plan starts c on target t with mem times the
// cards' GPU memory and overhead times their models' overheads; ok is
// false when the simulator refuses c for another reason than memory.
func (m *MemoryPlan) Fits(c space.Config, t space.Target, mem, overhead float64) (fits, ok bool) {
	err := m.at(mem, overhead).Fits(c, t)
	if err == nil {
		return true, true
	}
	f, isF := engines.AsFailure(err)
	return false, isF && f.Class == engines.OOM
}

// at is the simulator on the cards scaled so (one per scale pair: the
// search asks on a fixed grid of them).
func (m *MemoryPlan) at(mem, overhead float64) *sim.Simulator {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := [2]float64{mem, overhead}
	if sm := m.sims[key]; sm != nil {
		return sm
	}
	cards := *m.cards
	cards.GPUs = append([]sim.GPUCard(nil), m.cards.GPUs...)
	for i := range cards.GPUs {
		cards.GPUs[i].MemGiB *= mem
	}
	cards.Models = append([]sim.ModelCard(nil), m.cards.Models...)
	for i := range cards.Models {
		if cards.Models[i].MemOverhead == 0 {
			cards.Models[i].MemOverhead = 1 // the card's default
		}
		cards.Models[i].MemOverhead *= overhead
	}
	sm := &sim.Simulator{Cards: &cards}
	m.sims[key] = sm
	return sm
}

// Cards are the cards scaled so: the machine the plan pictures for the
// scales (the search predicts a memory probe on it).
func (m *MemoryPlan) Cards(mem, overhead float64) *sim.Cards { return m.at(mem, overhead).Cards }
