// Package report owns the report people read after a study: the full
// result model (Full: environment, baseline vs winners per profile, every
// trial as a point, best-so-far, knob importance, failures by class),
// the data of its plots, and its two renderers — a self-contained HTML
// page (inline SVG and CSS, nothing fetched at view time) and Markdown
// with SVG files beside it. It builds on studies.Report, whose JSON stays
// the contract; renderers read only Full.
package report
