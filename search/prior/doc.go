// Package prior lets a prediction guide a sampler. New wraps any sampler
// (built by the caller) with a search.Prior, such as the simulator: the
// prior screens many configs cheaply, predicts the most promising in
// full, and takes some of the proposals itself — the config it predicts
// best, corrected by what the study's trials measured — while the
// wrapped sampler keeps the others and is told every trial. The prior's
// share shrinks as it is caught wrong, and the wrapped sampler always
// keeps some turns, so a wrong prior slows a study but never traps it.
package prior
