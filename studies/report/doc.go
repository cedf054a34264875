// Package report owns the report people read after a study: the full
// result model (Full: environment, the recommended configs, baseline vs
// winners per profile with each profile's workload, every trial as a
// point, best-so-far, the prior's predictions against the measurements and
// its view of each knob value, knob importance by fANOVA (package fanova),
// failures by class; "simulated" wherever the values are),
// the data of its plots, and its two renderers — a self-contained HTML
// page (inline SVG and CSS, nothing fetched at view time) and Markdown
// with SVG files beside it. It builds on studies.Report, whose JSON stays
// the contract; renderers read only Full.
package report
