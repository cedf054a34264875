// Package studies runs a study: one loop (Run; a sequential study is its
// one-worker case) asks the sampler for configs, claims each trial in the
// store, measures it through objective.Measure and records and tells its
// outcome, so a kill at any moment loses at most the trial in flight; a
// Session opens the study for running; and Report is the result model
// the commands render (its JSON the contract; text, Markdown and CSV).
package studies
