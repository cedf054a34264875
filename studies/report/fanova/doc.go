// Package fanova says how much of an objective each knob explains, as
// Optuna's default importance evaluator does: a random forest is fitted to
// the measured trials, and each tree's prediction is decomposed by
// functional ANOVA (Hutter, Hoos and Leyton-Brown, ICML 2014) into the
// variance every knob explains alone. A knob whose values the study tried
// only alongside another's (correlated knobs) cannot steal the other's
// share, as it can under a nearest-neighbour surrogate: each tree splits on
// the knob that explains the data best, and the marginal of every other knob
// is averaged over its whole domain. The domain of a knob is the values the
// trials took, weighted alike; an absent value (a `when` knob that did not
// apply) is a value of its own.
package fanova
