// Package view is the live view of a running study (restic keeps its
// progress in internal/ui): on a terminal one compact block redrawn in
// place above a short line per finished trial, otherwise structured log
// lines with rounded numbers; the prior's start-up bar; the benchmark's
// request count. The ETA it shows is studies/progress's model; cmd only
// decides whether the output is a terminal and wires the events in.
package view
