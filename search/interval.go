package search

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// A report states, for each config it names, the 95% interval of its
// value. Until the thirteenth pass of issue 21 that was 1.96·CV/√n with
// the CV measured from a study's few repeats, as if it were known: over
// 1,220 lab studies it held the reported config's true value 82% of the
// time, and any config's 86%. The noise is itself estimated, from a few
// degrees of freedom of repeats and the assumed CV (PriorCV), so the
// interval is Student-t's: the posterior of a normal mean when its
// variance has the scaled-inverse-χ² prior PriorCV stands for (the assumed
// CV at noisePriorDF degrees of freedom), updated by df measured ones.
// With no repeat the noise is the assumption alone, at noisePriorDF.

// intervalP is the two-sided confidence of the stated interval.
const intervalP = 0.95

// HalfWidth is the relative half-width of the 95% interval of the mean of
// n measurements, the noise measured as cv from df degrees of freedom of
// repeats and assumed as assumed (0: cv is taken as known).
func HalfWidth(cv float64, df, n int, assumed float64) float64 {
	nu := float64(df)
	if assumed > 0 {
		nu += noisePriorDF
	}
	q := confirmZ
	if nu > 0 {
		q = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(1 - (1-intervalP)/2)
	}
	return q * PriorCV(cv, df, assumed) / math.Sqrt(float64(max(1, n)))
}
