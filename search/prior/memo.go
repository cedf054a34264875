package prior

// residMemo is a candidate's residual correction per objective as of one
// state of one residual model (the table replaces its model on relearn).
type residMemo struct {
	of  *residual
	ver int
	est []float64
}

// residOf is residual.predict(obj, cd.cfg), computed once per candidate
// and state of the residual model.
func (t *table) residOf(obj int, cd *candidate) float64 {
	m := &cd.resid
	if m.of != t.resid || m.ver != t.resid.ver || m.est == nil {
		*m = residMemo{of: t.resid, ver: t.resid.ver, est: make([]float64, len(t.resid.obj))}
		for i := range m.est {
			m.est[i] = t.resid.predict(i, cd.cfg)
		}
	}
	if obj >= len(m.est) {
		return t.resid.predict(obj, cd.cfg)
	}
	return m.est[obj]
}

// everyMemo is a candidate's share of the prior's turns as of one state
// of one regionTrust.
type everyMemo struct {
	of    *regionTrust
	ver   int
	every int
}

// everyOf is rt.every(cd.cfg), computed once per candidate and state of
// rt.
func (rt *regionTrust) everyOf(cd *candidate) int {
	if rt == nil {
		return rt.every(cd.cfg)
	}
	m := &cd.every
	if m.of != rt || m.ver != rt.ver {
		*m = everyMemo{of: rt, ver: rt.ver, every: rt.every(cd.cfg)}
	}
	return m.every
}
