package modelfree

import (
	"maps"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// fractionKnob is the memory-fraction knob whose direction and shortfall
// an out-of-memory message gives (oomAdvice).
const fractionKnob = "mem_fraction"

// fractionMemory places each family's memory cliff on the memory fraction
// from what the engines' out-of-memory messages say, where scoot's
// familyMemory can only rule out the cone above an OOM:
//
//   - an OOM that asks for a lower fraction and says by how much
//     (PyTorch's "Tried to allocate X GiB ... of which Z MiB is free")
//     rules out, in its family and at least as high on every other
//     pressure knob, every fraction above the OOM's minus the shortfall:
//     one OOM at 0.95 places the cliff at 0.8, not at 0.95;
//   - an OOM that asks for a higher fraction (the KV pool or the weights
//     do not fit: vLLM's cache-block and max-length checks, SGLang's
//     static pool) rules out every fraction at or below the OOM's, where
//     the cone would wrongly rule out the fractions above it;
//   - an OOM whose message says neither is left to familyMemory's cone.
//
// An OOM stops being evidence once a completed trial falls in what it
// rules out.
type fractionMemory struct {
	fam  *families
	cone *familyMemory
	oom  []advisedOOM
	ok   []space.Config
}

type advisedOOM struct {
	c space.Config
	a oomAdvice
}

func newFractionMemory(fam *families) *fractionMemory {
	return &fractionMemory{fam: fam, cone: &familyMemory{fam: fam}}
}

// tell adds a trial's evidence; c is its config with the target's engine.
func (f *fractionMemory) tell(c space.Config, o search.Observation) {
	if o.Class == search.ClassOOM {
		if a := readOOM(o.Message); a.dir != 0 && hasFraction(c) {
			f.oom = append(f.oom, advisedOOM{c: c, a: a})
			return
		}
	}
	if o.State == search.Complete {
		f.ok = append(f.ok, c)
	}
	f.cone.tell(c, o)
}

// predict reports whether c is predicted to run out of memory.
func (f *fractionMemory) predict(c space.Config) bool {
	if f.cone.predict(c) {
		return true
	}
	for _, o := range f.oom {
		if f.rulesOut(o, c) && !f.contradicted(o) {
			return true
		}
	}
	return false
}

func (f *fractionMemory) contradicted(o advisedOOM) bool {
	for _, k := range f.ok {
		if f.rulesOut(o, k) {
			return true
		}
	}
	return false
}

// rulesOut reports whether OOM o's advice rules out config c.
func (f *fractionMemory) rulesOut(o advisedOOM, c space.Config) bool {
	if f.fam.key(o.c) != f.fam.key(c) || !hasFraction(c) || !pressureBelowBut(o.c, c, fractionKnob) {
		return false
	}
	return fractionOut(o.a, fractionOf(o.c), fractionOf(c))
}

// fractionOut decides, for an OOM at fraction at with advice a, whether
// fraction x fails too: above at − shortfall when the fraction must come
// down (at and above at when the message gives no figure), at or below
// at when it must go up.
func fractionOut(a oomAdvice, at, x float64) bool {
	const eps = 1e-6
	switch {
	case a.dir < 0 && a.short > 0:
		return x > at-a.short+eps
	case a.dir < 0:
		return x >= at-eps
	case a.dir > 0:
		return x <= at+a.short+eps
	}
	return false
}

func hasFraction(c space.Config) bool {
	_, ok := space.Number(c[fractionKnob], true)
	return ok
}

func fractionOf(c space.Config) float64 {
	x, _ := space.Number(c[fractionKnob], true)
	return x
}

// pressureBelowBut is pressureBelow on every pressure knob but skip.
func pressureBelowBut(a, b space.Config, skip string) bool {
	a, b = maps.Clone(a), maps.Clone(b)
	delete(a, skip)
	delete(b, skip)
	return pressureBelow(a, b)
}
