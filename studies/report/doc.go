// Package report builds the report people read after a study (Full: the
// environment, recommended configs, baseline against winners per
// profile, every trial as a point, the prior's predictions against the
// measurements, knob importance, failures by class; "simulated"
// wherever the values are) from studies.Report, whose JSON stays the
// contract, and renders it as self-contained HTML or Markdown with SVGs.
package report
