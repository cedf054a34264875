// Package export turns one trial into what deploys it outside servetune:
// a `docker run` snippet or Kubernetes manifests of the engine's official
// image with the trial's exact argv, the deployment facts asked of the
// engine registry, the GPUs the trial ran on requested, and a trial that
// did not complete refused unless forced; rendering is pure, a Plan in
// and text out.
package export
