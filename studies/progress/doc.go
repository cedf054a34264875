// Package progress is the model behind a study's progress view: how long
// the study still needs (ETA). It is pure — every method takes the time —
// so cmd/servetune only feeds it the study's events and prints what it
// says, and its tests move the clock by hand.
package progress
