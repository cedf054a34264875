package simprior

import (
	"slices"
	"testing"
)

// The memo keeps at most its bound, forgetting the least recently used,
// and gives back copies (a caller's edit cannot change a later answer).
func TestMachineMemoBounded(t *testing.T) {
	m := newMachineMemo(2)
	a, b, c := memoKey{config: "a", mem: 1, overhead: 1}, memoKey{config: "a", mem: 1.1, overhead: 1}, memoKey{config: "a", mem: 1, overhead: 1, screen: true}
	m.put(a, []float64{1}, true)
	m.put(b, []float64{2}, true)
	if v, _, ok := m.get(a); !ok || !slices.Equal(v, []float64{1}) {
		t.Fatalf("a: %v %v", v, ok)
	} else {
		v[0] = 99
	}
	m.put(c, nil, false) // b is now the least recently used
	if _, _, ok := m.get(b); ok {
		t.Error("b kept beyond the bound of 2 though least recently used")
	}
	if v, _, ok := m.get(a); !ok || !slices.Equal(v, []float64{1}) {
		t.Errorf("a: %v %v, want [1] (a copy)", v, ok)
	}
	if v, feasible, ok := m.get(c); !ok || v != nil || feasible {
		t.Errorf("c: %v %v %v, want the remembered infeasible prediction", v, feasible, ok)
	}
	if n := m.len(); n != 2 {
		t.Errorf("%d predictions kept, bound 2", n)
	}
}
