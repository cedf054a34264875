package simprior

import (
	"container/list"
	"sync"
)

// machineMemo remembers the prior's predictions on scaled machines
// (PredictOn, ScreenOn). The search predicts every candidate again each
// time the machine it predicts on moves, and again on a machine it moved
// back to, and relearns its residual from the measured configs'
// predictions; the predictions on the card are kept by the study's
// prior file (search/prior.Cache), these were simulated each time. The
// key holds everything else a prediction depends on besides the prior's
// own cards, target and profiles: the config, the two scales and which
// benchmarks (full or screening). It is bounded, least recently used
// first out, and safe for concurrent use.
type machineMemo struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *memoEntry, most recent first
	by    map[memoKey]*list.Element
}

// memoKey is one prediction: the config's key, the machine's scales and
// whether it screens.
type memoKey struct {
	config        string
	mem, overhead float64
	screen        bool
}

type memoEntry struct {
	key      memoKey
	values   []float64
	feasible bool
}

// machineMemoSize bounds the memo: a few machines' screenings of the
// start-up candidates (a few hundred each) and their full predictions.
const machineMemoSize = 1 << 13

func newMachineMemo(max int) *machineMemo {
	return &machineMemo{max: max, order: list.New(), by: map[memoKey]*list.Element{}}
}

// get is the remembered prediction of k, if any.
func (m *machineMemo) get(k memoKey) (values []float64, feasible, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.by[k]
	if e == nil {
		return nil, false, false
	}
	m.order.MoveToFront(e)
	me := e.Value.(*memoEntry)
	return append([]float64(nil), me.values...), me.feasible, true
}

// put remembers k's prediction, forgetting the least recently used
// beyond the bound.
func (m *machineMemo) put(k memoKey, values []float64, feasible bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.by[k]; e != nil {
		m.order.MoveToFront(e)
		return
	}
	m.by[k] = m.order.PushFront(&memoEntry{key: k, values: append([]float64(nil), values...), feasible: feasible})
	for m.order.Len() > m.max {
		old := m.order.Back()
		m.order.Remove(old)
		delete(m.by, old.Value.(*memoEntry).key)
	}
}

// len is how many predictions the memo holds.
func (m *machineMemo) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}
