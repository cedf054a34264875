package search

import (
	"math"
	"slices"
)

// Heavy-tailed noise now and then reads one measurement far off: the
// eleventh pass of issue 21 found a config named best on a +22% and a +41%
// draw, its second measurement near its truth and their mean still
// inflated by half the outlier. Two measurements cannot say which of them
// is off; a third can. When a config's two measurements disagree by more
// than disputeZ standard deviations of their difference (√2·CV, the CV
// measured without them), confirmation measures it a third time, and the
// config's value is then their median (Central), which one wild draw does
// not move. Configs whose measurements agree keep their mean, the better
// estimate under noise without outliers.
const disputeZ = 3

// Disputed reports whether measurements of one config disagree beyond
// noise cv: its highest and lowest, in log ratio, by more than disputeZ
// standard deviations of a difference of two.
func Disputed(vs []float64, cv float64) bool {
	if len(vs) < 2 || cv <= 0 || slices.ContainsFunc(vs, func(v float64) bool { return !(v > 0) }) {
		return false
	}
	return math.Log(slices.Max(vs)/slices.Min(vs)) > disputeZ*math.Sqrt2*cv
}

// Central is a config's value from its measurements: their mean, or, for
// a disputed config measured three times or more, their median; NaN when
// there are none or one is NaN.
func Central(vs []float64, disputed bool) float64 {
	if len(vs) == 0 || slices.ContainsFunc(vs, math.IsNaN) {
		return math.NaN()
	}
	if !disputed || len(vs) < 3 {
		s := 0.0
		for _, v := range vs {
			s += v
		}
		return s / float64(len(vs))
	}
	s := slices.Sorted(slices.Values(vs))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	n := len(s)
	return (s[n/2-1] + s[n/2]) / 2
}

// PriorCV is a measured noise CV (from df degrees of freedom of repeats)
// pooled with the assumed one at noisePriorDF degrees of freedom: a few
// quiet repeats close in time understate heavy-tailed noise. The measured
// CV alone when there are no repeats or no assumed CV.
func PriorCV(measured float64, df int, assumed float64) float64 {
	if df <= 0 || assumed <= 0 {
		return measured
	}
	d := float64(df)
	return math.Sqrt((d*measured*measured + noisePriorDF*assumed*assumed) / (d + noisePriorDF))
}

// confirmDisputed measures the leader a third time when its two
// measurements disagree (Measured.Disputed), within the grown budget.
func (s ConfirmState) confirmDisputed() (Confirm, bool) {
	l, ok := s.leader()
	if !ok || !l.Disputed || l.N != 2 || l.Running {
		return Confirm{}, false
	}
	return Confirm{l.Key, "confirm"}, true
}
