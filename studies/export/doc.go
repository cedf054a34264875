// Package export turns one trial of a study into what deploys it outside
// servetune: a `docker run` snippet or Kubernetes manifests of the engine's
// official image with the trial's exact argv. It owns the per-engine
// deployment facts (image, port, health path, model cache, time to load)
// in one table, refuses a trial that did not complete unless forced, and
// requests exactly the GPUs the trial ran on. Rendering is pure: a Plan
// in, text out.
package export
