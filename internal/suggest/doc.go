// Package suggest answers "did you mean" for a name a user mistyped — a
// command, a flag, a key of a space file, a knob, a sort key — from the
// names that would have been accepted. It is the one place the edit
// distance and the threshold of a plausible typo live.
package suggest
