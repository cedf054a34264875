// Package simprior is the simulator prior: a config's objectives
// predicted by one noiseless trial on the simulator (objective's
// SimRunner, on the study's cards and profiles, screening on shortened
// ones), served to the search as a search.Prior. It lives under
// objective, not search, because predicting a trial means running one,
// and search imports nothing that runs trials. A study's prior keeps its
// predictions in the study's directory (InStudy, File), keyed on this
// build and the cards, so a resume does not screen again; a dry run reads
// them from a scratch copy (ForDryRun).
package simprior
