package search

import "math"

// NormCDF is the standard normal distribution function: motpe's truncated
// Parzen kernels and cbo's expected improvement both integrate it.
func NormCDF(u float64) float64 { return 0.5 * math.Erfc(-u/math.Sqrt2) }
