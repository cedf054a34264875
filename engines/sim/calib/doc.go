// Package calib fits the simulator's card factors to measurements: the
// target GPU card's HBM bandwidth, compute and NVLink, the model card's
// expert, communication and memory-overhead factors and MTP acceptance,
// and the draft cards' acceptance. It decides which of them the
// measurements can identify (the others stay at 1), fits those jointly by
// a bounded, regularised least squares on log(simulated / measured), and
// summarises the simulator's error per metric before and after. It does
// not read studies or run the simulator itself: the caller supplies the
// measurements and a predictor (cmd/servetune calibrate), so the fit is
// testable on any function.
package calib
