// Package calibrate is the calibration problem of `servetune calibrate`:
// which measured values a fit compares and how the simulator predicts
// them on candidate cards, for a finished study's trials (Study) or for
// benchmark results users already have (NewRun, MeasurementProblem),
// the fitted cards as TOML and the fit's report. The fitting itself is
// engines/sim/calib's; cmd reads the flags, prints and writes the cards.
package calibrate
